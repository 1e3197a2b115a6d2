package executor

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// cueFiles are the cue files of a synthesis (planner.CuesJSON, CuesVTT),
// written to temporary files beside their paths and committed after the
// audio, so that none appears unless all were written.
type cueFiles struct {
	outs    []*outputFile
	formats []string
}

// hasCues reports whether a's synthesis declares cue files.
func hasCues(a *planner.Action) bool {
	for _, o := range a.Desired.Outputs {
		if o.Format == planner.CuesJSON || o.Format == planner.CuesVTT {
			return true
		}
	}
	return false
}

// chunkCues are the cues of a chunked synthesis: chunk i starts at
// starts[i] (the joiner's duration before it was appended; starts has one
// more element, the end of the last) and says what it speaks of the text
// as written.
func chunkCues(a *planner.Action, starts []time.Duration) ([]narration.Cue, error) {
	text := a.Desired.Details().Written
	chunks := a.Desired.Details().Chunks
	if len(starts) != len(chunks)+1 {
		return nil, fmt.Errorf("cues: %d chunk starts for %d chunks", len(starts), len(chunks))
	}
	cues := make([]narration.Cue, len(chunks))
	for i, ch := range chunks {
		if ch.WrittenStart < 0 || ch.WrittenStart > ch.WrittenEnd || ch.WrittenEnd > len(text) {
			return nil, fmt.Errorf("cues: chunk %d of %d lies outside the text as written (bytes %d to %d of %d); plan again",
				i+1, len(chunks), ch.WrittenStart, ch.WrittenEnd, len(text))
		}
		cues[i] = narration.Cue{Start: starts[i], End: starts[i+1], Text: text[ch.WrittenStart:ch.WrittenEnd]}
	}
	return cues, nil
}

// wholeCue is the one cue of a synthesis that is not chunked: its whole
// text as written, from the start to the end of the audio at path.
func wholeCue(a *planner.Action, path string, format contract.Format) ([]narration.Cue, error) {
	d, err := audioDuration(path, format)
	if err != nil {
		return nil, fmt.Errorf("cues: %w", err)
	}
	return []narration.Cue{{End: d, Text: strings.TrimSpace(a.Desired.Details().Written)}}, nil
}

// audioDuration is the duration of the audio file at path in format.
func audioDuration(path string, format contract.Format) (time.Duration, error) {
	if format.Headered() {
		info, err := audio.Probe(path)
		return info.Duration, err
	}
	f, err := format.Audio()
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	info, err := audio.ProbeRaw(st.Size(), f)
	return info.Duration, err
}

// writeCues writes the cue files a declares to temporary files; Commit
// makes them visible, Abort removes them.
func (w *outputs) writeCues(a *planner.Action, cues []narration.Cue) (*cueFiles, error) {
	cf := &cueFiles{}
	for _, o := range a.Desired.Outputs[1:] {
		if o.Format != planner.CuesJSON && o.Format != planner.CuesVTT {
			continue // a delivered output (deliverOp)
		}
		out, err := w.output(a, o.Path)
		if err != nil {
			cf.Abort()
			return nil, err
		}
		cf.outs = append(cf.outs, out)
		cf.formats = append(cf.formats, o.Format)
		if err := writeCueFile(out, o.Format, cues); err != nil {
			cf.Abort()
			return nil, fmt.Errorf("write %s: %w", o.Path, err)
		}
	}
	return cf, nil
}

// cueWriter is narration.JSONCues or narration.VTTChapters.
type cueWriter interface {
	Write(narration.Cue) error
	Close() error
}

func writeCueFile(w io.Writer, format string, cues []narration.Cue) error {
	var cw cueWriter
	switch format {
	case planner.CuesJSON:
		cw = narration.NewJSONCues(w)
	case planner.CuesVTT:
		cw = narration.NewVTTChapters(w)
	default:
		return fmt.Errorf("unknown cue format %q", format)
	}
	for _, c := range cues {
		if err := cw.Write(c); err != nil {
			return err
		}
	}
	return cw.Close()
}

// Commit renames the cue files into place and returns them as outputs.
func (cf *cueFiles) Commit() ([]state.Output, error) {
	var outs []state.Output
	for i, out := range cf.outs {
		o, err := out.Commit(nil)
		if err != nil {
			cf.Abort()
			return nil, err
		}
		o.Format = cf.formats[i]
		outs = append(outs, o)
	}
	return outs, nil
}

// Abort removes the cue files not committed; nil-safe.
func (cf *cueFiles) Abort() {
	if cf == nil {
		return
	}
	for _, out := range cf.outs {
		out.Abort()
	}
}
