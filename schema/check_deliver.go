package schema

import (
	"fmt"
	"strconv"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// MaxOpusChannels is the most channels of Ogg Opus audio voxform decodes
// (audio/loudness: mapping family 0, mono or stereo).
const MaxOpusChannels = 2

// undecodable says why voxform cannot decode the audio a synthesis
// writes (in format f) to master it: audio/loudness's decoders read WAV,
// MP3, Ogg Opus of one or two channels, and headerless PCM, mu-law and
// A-law. "" when it can.
func undecodable(f contract.Format) string {
	switch f.Container {
	case contract.MP3:
		return ""
	case contract.Ogg:
		if f.NumChannels > MaxOpusChannels {
			return fmt.Sprintf("its Ogg Opus audio has %d channels; voxform decodes Opus of 1 or 2", f.NumChannels)
		}
		return ""
	case contract.WAV, contract.Raw, contract.MuLaw, contract.ALaw:
		a, err := f.Audio()
		if err == nil {
			err = a.Validate()
		}
		if err != nil {
			return fmt.Sprintf("voxform cannot decode its %s audio: %v", f.Container, err)
		}
		return ""
	}
	return fmt.Sprintf("voxform decodes wav, mp3, ogg (Opus) and raw pcm, mu-law and a-law audio, not %s", f.Container)
}

// checkDeliverable refuses, at what, mastering the audio of s (a
// deliver: of its own, or a package chapter) when voxform cannot decode
// it; once per position and format. The audio_config itself is checked
// (and reported) by checkAudioConfig: an invalid one is not checked here.
func (c *checker) checkDeliverable(s *manifest.Synthesis, what string, at manifest.Pos) {
	f, problems := contract.Resolve(s.AudioConfig)
	for _, p := range problems {
		if p.Severity == contract.Error {
			return
		}
	}
	if !c.once(onceKey{what: "deliverable", pos: at, value: f.Container + "\x00" + strconv.Itoa(f.NumChannels) + "\x00" + strconv.Itoa(f.SampleWidth)}) {
		return
	}
	if why := undecodable(f); why != "" {
		c.ds.Errorf(at, "%s: the audio of %s cannot be mastered: %s", what, s.Address, why).
			WithHint("deliver from audio voxform decodes: %s", decodable)
	}
}

// decodable names what undecodable accepts, for hints.
var decodable = fmt.Sprintf("wav, raw, mulaw, alaw, mp3, or ogg of at most %d channels (audio_config)", MaxOpusChannels)

// checkPackages checks what a package's chapters need of their
// syntheses: audio voxform decodes, to master and join.
func (c *checker) checkPackages() {
	if len(c.m.Packages) == 0 {
		return
	}
	by := make(map[string]*manifest.Synthesis, len(c.m.Syntheses))
	for _, s := range c.m.Syntheses {
		by[s.Address] = s
	}
	for _, p := range c.m.Packages {
		for _, ch := range p.Chapters {
			if s := by[ch.Synthesis]; s != nil {
				c.checkDeliverable(s, "chapter", ch.Pos)
			}
		}
	}
}
