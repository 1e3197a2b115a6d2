package schema

import (
	"path/filepath"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
)

// checkRecorded checks a synthesis's recording (recorded:): no cue files
// beside it (cue times come from the service's alignment; a recording
// has none), no listen.regenerate (a recording is not made again), and, unless probing is off, a recording that really lies in
// the manifest directory (no link out of it), a regular file, whose
// audio, probed by its content, becomes the declared format by a copy or
// a lossless conversion, or by a lossy one that convert: true declares
// (contract.CheckRecording). The executor checks the file again before
// it is used.
func (c *checker) checkRecorded(s *manifest.Synthesis) {
	r := s.Recorded
	if r == nil {
		return
	}
	at := manifest.FieldPos(s.Fields, "recorded.path", manifest.FieldPos(s.Fields, "recorded", s.Pos))
	if s.HasKey && s.KeyPos.Line > 0 {
		at = s.KeyPos
	}
	if s.Cues != nil && c.once(onceKey{what: "recorded cues", pos: s.Pos, value: s.Name}) {
		c.ds.Errorf(manifest.FieldPos(s.Fields, "cues", s.Pos), "synthesis %q sets both recorded and cues: a recording has no cue times (they come from the service's alignment)", s.Name).
			WithHint("remove cues:, or remove recorded: to synthesize the text")
	}
	if s.Listen != nil && s.Listen.Regenerate > 0 && c.once(onceKey{what: "recorded regenerate", pos: s.Pos, value: s.Name}) {
		c.ds.Errorf(manifest.FieldPos(s.Listen.Fields, "regenerate", s.Listen.Pos), "synthesis %q sets both recorded and listen.regenerate: a recording is not made again", s.Name).
			WithHint("remove regenerate: (the check still tells a failing recording)")
	}
	if c.opts.NoProbe {
		return
	}
	f, err := owned.OpenInput(c.m.Dir, filepath.FromSlash(r.Path))
	if err != nil {
		c.ds.Errorf(at, "recorded %s: %v", r.Path, causeOfProbe(err)).
			WithHint("name a recording inside the manifest directory, relative to it")
		return
	}
	defer f.Close()
	info, err := audio.ProbeReader(f)
	if err != nil {
		c.ds.Errorf(at, "recorded %s: %v", r.Path, causeOfProbe(err)).WithHint("give a WAV recording")
		return
	}
	format, _ := contract.Resolve(s.AudioConfig)
	if _, err := contract.CheckRecording(info, format, r.Convert); err != nil {
		c.ds.Errorf(at, "recorded %s: %v", r.Path, err)
	}
}
