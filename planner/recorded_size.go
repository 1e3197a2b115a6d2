package planner

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
)

// recordingFits refuses, at pos, a recording in dir larger than
// manifest.MaxRecordingBytes, by the size of the file opened as an input
// (owned.OpenInput), so that the plan neither hashes it nor promises it.
// A recording that cannot be opened is left to the hash, which says why.
func recordingFits(dir string, pos manifest.Pos, rel string) error {
	f, err := owned.OpenInput(dir, filepath.FromSlash(rel))
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= manifest.MaxRecordingBytes {
		return nil
	}
	return fmt.Errorf("%s: recording %s: %s bytes, larger than %s bytes, the limit for a recording (MaxRecordingBytes)",
		pos, rel, numfmt.Thousands(st.Size()), numfmt.Thousands(manifest.MaxRecordingBytes))
}

// recordingContainer is the container the recording at rel in dir
// starts with (audio.Sniff), read as an input (owned.OpenInput);
// audio.ContainerUnknown when it cannot be read (the hash says why).
func recordingContainer(dir, rel string) audio.Container {
	f, err := owned.OpenInput(dir, filepath.FromSlash(rel))
	if err != nil {
		return audio.ContainerUnknown
	}
	defer f.Close()
	head := make([]byte, audio.SniffLen)
	n, _ := io.ReadFull(f, head)
	return audio.Sniff(head[:n])
}
