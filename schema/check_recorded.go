package schema

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
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
	sd := s.Details()
	r := sd.Recorded
	if r == nil {
		return
	}
	at := manifest.FieldPos(s.Fields, "recorded.path", manifest.FieldPos(s.Fields, "recorded", s.Pos))
	if s.HasKey && s.KeyPos.Line > 0 {
		at = s.KeyPos
	}
	if sd.Cues != nil && c.once(onceKey{what: "recorded cues", pos: s.Pos, value: s.Name}) {
		c.ds.Errorf(manifest.FieldPos(s.Fields, "cues", s.Pos), "synthesis %q sets both recorded and cues: a recording has no cue times (they come from the service's alignment)", s.Name).
			WithHint("remove cues:, or remove recorded: to synthesize the text")
	}
	if sd.Listen != nil && sd.Listen.Regenerate > 0 && c.once(onceKey{what: "recorded regenerate", pos: s.Pos, value: s.Name}) {
		c.ds.Errorf(manifest.FieldPos(sd.Listen.Fields, "regenerate", sd.Listen.Pos), "synthesis %q sets both recorded and listen.regenerate: a recording is not made again", s.Name).
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
	if !c.recordingFits(at, r.Path, f) || !c.recordingNotOutput(at, r.Path) {
		return
	}
	info, err := audio.ProbeReader(f)
	if err != nil {
		c.ds.Errorf(at, "recorded %s: %v", r.Path, causeOfProbe(err)).
			WithHint("give a WAV recording (or an MP3 or Ogg file for an mp3 or ogg output)")
		return
	}
	if info.Container == audio.ContainerWAV {
		// The check a copied WAV meets at apply (audio.ValidateReader):
		// sizes that agree with the file, so that a cut recording is
		// not converted as if it were whole.
		if err := audio.ValidateReader(f, audio.ContainerWAV); err != nil {
			c.ds.Errorf(at, "recorded %s: %v", r.Path, err).WithHint("give the whole recording, as the studio wrote it")
			return
		}
	}
	format, _ := contract.Resolve(s.AudioConfig)
	conv, err := contract.CheckRecording(info, format, r.Convert)
	if err != nil {
		c.ds.Errorf(at, "recorded %s: %v", r.Path, err)
		return
	}
	if conv.Encode == "" {
		return
	}
	if info.Duration <= 0 {
		c.ds.Errorf(at, "recorded %s: the recording holds no audio, and an empty %s file cannot be encoded", r.Path, format.Container).
			WithHint("give the recording its audio, or declare a wav or raw output")
		return
	}
	// What ffmpeg could not make exactly (an MP3 bit rate LAME would not
	// keep at the rate) is said here, at the audio_config.
	if err := encode.CheckEncoding(contract.RecordingProfile(format).Encoding); err != nil {
		c.ds.Errorf(manifest.FieldPos(s.Fields, "audio_config.bitrate", manifest.FieldPos(s.Fields, "audio_config", at)), "recorded %s: %v", r.Path, err).
			WithHint("declare a bitrate the sample rate takes, or another sample rate")
	}
}

// recordingFits refuses, at at, a recording (opened as f) larger than
// manifest.MaxRecordingBytes, before anything reads it.
func (c *checker) recordingFits(at manifest.Pos, rel string, f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		c.ds.Errorf(at, "recorded %s: %v", rel, err)
		return false
	}
	if st.Size() > manifest.MaxRecordingBytes {
		c.ds.Errorf(at, "recorded %s: %s bytes, larger than %s bytes, the limit for a recording (MaxRecordingBytes)",
			rel, numfmt.Thousands(st.Size()), numfmt.Thousands(manifest.MaxRecordingBytes)).
			WithHint("give a shorter recording")
		return false
	}
	return true
}

// recordingNotOutput refuses, at at, a recording that is through a link
// inside the manifest directory (allowed) a file some resource writes
// (an output or a delivery): its real path is compared with theirs as
// the file system resolves them. A recording that names an output as
// written is refused by checkPaths at the output.
func (c *checker) recordingNotOutput(at manifest.Pos, rel string) bool {
	real, ok := realRel(c.m.Dir, rel)
	if !ok || real == rel {
		return true
	}
	o, ok := c.outputsByReal()[real]
	if !ok {
		return true
	}
	c.ds.Errorf(at, "recorded %s: is %q (through a link), the output of %s (%s); a recording is an input", rel, o.path, o.address, o.pos).
		WithHint("name the studio's file itself, not a file voxform writes")
	return false
}

// outputsByReal maps every output and delivery, resolved as the file
// system resolves it now (through links inside the manifest directory),
// to the output; computed once.
func (c *checker) outputsByReal() map[string]output {
	if c.realOuts != nil {
		return c.realOuts
	}
	c.realOuts = map[string]output{}
	root, err := owned.Open(c.m.Dir)
	if err != nil {
		return c.realOuts
	}
	defer root.Close()
	for _, o := range c.outputs() {
		if r, err := root.Resolve(o.path); err == nil {
			c.realOuts[r] = o
		}
		c.realOuts[o.path] = o
	}
	return c.realOuts
}

// realRel is rel, a file inside dir, as its real path relative to dir's:
// every link on its way resolved; ok is false when it does not resolve
// inside dir.
func realRel(dir, rel string) (string, bool) {
	base, err := filepath.Abs(dir)
	if err == nil {
		base, err = filepath.EvalSymlinks(base)
	}
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	r, err := filepath.Rel(base, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
