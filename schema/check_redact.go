package schema

import (
	"path/filepath"
	"strings"

	"github.com/voxform/voxform/audio/mute"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/redact"
)

// checkRedaction checks a transcription's redact: and channels: blocks:
// the kinds are known ones, a redacted copy of the recording is asked only
// of local WAV recordings, and channel roles only of multi-channel audio.
func (c *checker) checkRedaction(t *manifest.Transcription) {
	if r := t.Redact; r != nil {
		if _, err := redact.NewPolicy(r.Kinds); err != nil {
			c.ds.Errorf(manifest.FieldPos(r.Fields, "kinds", r.Pos), "redact: %v", err)
		}
		if t.CallbackURL != "" {
			c.ds.Warnf(manifest.FieldPos(t.Fields, "callback_url", t.Pos), "callback_url: the service posts the unredacted transcript to %s; redact: applies to voxform's outputs only", t.CallbackURL).
				WithHint("make sure the webhook's receiver may hold the personal data redact: keeps out of the outputs")
		}
		if r.Audio != "" {
			pos := manifest.FieldPos(r.Fields, "audio", r.Pos)
			if _, set := t.Fields["urls"]; set {
				c.ds.Errorf(pos, "redact.audio needs local recordings; transcription %q lists urls", t.Name).
					WithHint("download the recordings and list them under inputs:, or drop redact.audio")
			}
		}
	}
	if len(t.Channels) > 0 && !t.IsMultiChannel {
		c.ds.Errorf(manifest.FieldPos(t.Fields, "channels", t.Pos), "channels: names roles of channels, but is_multi_channel is not true").
			WithHint("set is_multi_channel: true for recordings with one speaker per channel")
	}
}

// checkRedactedInput refuses a redacted copy of a recording voxform
// cannot write: the copy keeps the source's format, which audio/mute
// writes only for WAV (PCM, float, mu-law, A-law). Only the header is read.
func (c *checker) checkRedactedInput(root *owned.Root, t *manifest.Transcription) {
	if t.RedactedAudio == "" || t.IsURL {
		return
	}
	in, err := root.OpenInputWithin(filepath.FromSlash(t.Input), t.InputDirs)
	if err != nil {
		return // checkInput said why
	}
	defer in.Close()
	handle := owned.HandlePath(in)
	if err := mute.Supports(handle); err != nil {
		why := strings.TrimPrefix(err.Error(), "mute "+handle+": ")
		c.ds.Errorf(manifest.FieldPos(t.Redact.Fields, "audio", t.Redact.Pos), "redact.audio: %s: %s", t.Input, why).
			WithHint("the redacted copy keeps the recording's format: convert the recordings to WAV, or drop redact.audio")
	}
}
