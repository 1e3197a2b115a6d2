package executor

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/speechapi"
)

// openRecording opens the local input of the transcription t through the
// check validate applies (owned.Root.OpenInputWithin): it must really lie
// inside the manifest directory, or inside a directory the block names
// under input_dirs, and be a regular file. A link swapped after the plan
// is refused here, before anything is sent.
func (w *outputs) openRecording(t *manifest.Transcription) (*os.File, error) {
	f, err := w.root.OpenInputWithin(filepath.FromSlash(t.Input), t.InputDirs)
	if err != nil {
		return nil, fmt.Errorf("open input %s: %w", t.Input, err)
	}
	return f, nil
}

// recordingSource is the local input of t as an upload. Each attempt opens
// it again through openRecording.
func (w *outputs) recordingSource(t *manifest.Transcription) (speechapi.Source, error) {
	f, err := w.openRecording(t)
	if err != nil {
		return speechapi.Source{}, err
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return speechapi.Source{}, fmt.Errorf("open input %s: %w", t.Input, err)
	}
	return speechapi.Source{Name: path.Base(t.Input), Size: st.Size(), Open: func() (io.ReadCloser, error) {
		return w.openRecording(t)
	}}, nil
}

// recordingSeconds is the duration of the local input of t, read from its
// header (0 when it cannot be read).
func (w *outputs) recordingSeconds(t *manifest.Transcription) float64 {
	f, err := w.openRecording(t)
	if err != nil {
		return 0
	}
	defer f.Close()
	return probeSeconds(owned.HandlePath(f))
}
