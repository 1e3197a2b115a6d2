package schema

import (
	"path"
	"strings"

	"github.com/voxform/voxform/manifest"
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

// checkRedactedInput refuses a redacted copy of a recording that is not a
// WAV file: the copy keeps the source's format, which voxform writes only
// for WAV.
func (c *checker) checkRedactedInput(t *manifest.Transcription) {
	if t.RedactedAudio == "" || strings.EqualFold(path.Ext(t.Input), ".wav") {
		return
	}
	c.ds.Errorf(manifest.FieldPos(t.Redact.Fields, "audio", t.Redact.Pos), "redact.audio: %s is not a .wav recording; the redacted copy keeps the source's format, which voxform writes only for WAV", t.Input).
		WithHint("convert the recordings to WAV, or drop redact.audio")
}
