package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/transcript"
)

// transcript reads the transcript JSON ref names: the output on disk while
// it holds its recorded content, else the cached one.
func (m *media) readTranscript(ref audioRef) *transcriptView {
	sha, copyTo, why := m.find(ref)
	if copyTo == nil {
		return &transcriptView{Note: "no transcript: " + why}
	}
	tmp, err := os.CreateTemp(m.out.Name(), ".transcript-*")
	if err != nil {
		return &transcriptView{Note: "no transcript: " + err.Error()}
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	if err := copyTo(tmp); err != nil {
		return &transcriptView{Note: "no transcript: " + err.Error()}
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return &transcriptView{Note: "no transcript: " + err.Error()}
	}
	if st, err := tmp.Stat(); err != nil || st.Size() > MaxTranscriptBytes {
		return &transcriptView{Note: fmt.Sprintf("no transcript: %s is over %d MiB", filepath.Base(ref.Label), MaxTranscriptBytes>>20)}
	}
	doc, err := transcript.DecodeJSON(io.LimitReader(tmp, MaxTranscriptBytes), transcript.Labels{Speakers: true, Roles: ref.Roles})
	if err != nil {
		return &transcriptView{Note: fmt.Sprintf("no transcript: %s (sha256 %.12s): %v", ref.Label, sha, err)}
	}
	t := &transcriptView{Segments: []segment{}}
	for i, s := range doc.Segments {
		if i == MaxSegments {
			t.More = len(doc.Segments) - i
			break
		}
		t.Segments = append(t.Segments, segment{Start: s.Start.Seconds(), End: s.End.Seconds(), Speaker: s.Speaker, Text: clipText(s.Text)})
	}
	return t
}
