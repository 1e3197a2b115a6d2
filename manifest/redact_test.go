package manifest

import (
	"strings"
	"testing"
)

const redactHead = "transcriptions:\n  calls:\n    api: batch\n    language_code: hi-IN\n    output_dir: out\n    inputs: [rec/a.wav]\n    is_multi_channel: true\n"

// TestRedactBlock: the short and the long form, the redacted copy's path
// beside the outputs, channel roles by number, and nothing when unset.
func TestRedactBlock(t *testing.T) {
	files := map[string]string{"rec/a.wav": "RIFF"}
	m, ds := load(t, redactHead+"    redact: [mobile, aadhaar]\n", files, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	tr := m.Transcriptions[0]
	if tr.Redact == nil || strings.Join(tr.Redact.Kinds, ",") != "mobile,aadhaar" || tr.Redact.KeepUnredacted || tr.RedactedAudio != "" {
		t.Errorf("short form: %+v, redacted audio %q", tr.Redact, tr.RedactedAudio)
	}
	m, ds = load(t, redactHead+"    redact: {kinds: all, keep_unredacted: true, audio: beep}\n    channels: {0: agent, 1: customer}\n", files, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	tr = m.Transcriptions[0]
	if tr.Redact == nil || strings.Join(tr.Redact.Kinds, ",") != "all" || !tr.Redact.KeepUnredacted || tr.Redact.Audio != "beep" {
		t.Errorf("long form: %+v", tr.Redact)
	}
	if tr.RedactedAudio != "out/a.redacted.wav" {
		t.Errorf("redacted audio at %q, want out/a.redacted.wav", tr.RedactedAudio)
	}
	if tr.Channels[0] != "agent" || tr.Channels[1] != "customer" || len(tr.Channels) != 2 {
		t.Errorf("channels %v", tr.Channels)
	}
	m, ds = load(t, redactHead, files, LoadOptions{})
	if ds.HasErrors() || m.Transcriptions[0].Redact != nil || m.Transcriptions[0].Channels != nil {
		t.Errorf("unset: %v %+v", ds, m.Transcriptions[0])
	}
}

// TestRedactBlockErrors: each mistake is reported at its line.
func TestRedactBlockErrors(t *testing.T) {
	files := map[string]string{"rec/a.wav": "RIFF"}
	for _, tc := range []struct{ yaml, want string }{
		{"    redact: []\n", "8:13: redact: names no kinds"},
		{"    redact: {keep_unredacted: true}\n", "8:13: redact: names no kinds"},
		{"    redact: {kinds: [mobile], audio: mute}\n", `8:38: redact.audio "mute": want silence or beep`},
		{"    channels: {agent: 0}\n", `8:16: channels: "agent" is not a channel number from 0 to 7`},
		{"    channels: {9: agent}\n", `8:16: channels: "9" is not a channel number from 0 to 7`},
		{"    channels: {0: \"\"}\n", "8:20: channels: channel 0 has no role"},
		{"    channels: {0: " + strings.Repeat("a", MaxRoleLen+1) + "}\n", "longer than 64 bytes"},
		{"    channels: [agent]\n", "8:15: channels: want a map of channel number to role"},
	} {
		_, ds := load(t, redactHead+tc.yaml, files, LoadOptions{})
		if ds.Err() == nil || !strings.Contains(ds.Err().Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.yaml, ds, tc.want)
		}
	}
}

// TestRedactedCopyIsNoInput: a redacted copy the block's own input pattern
// would match is refused before it is written.
func TestRedactedCopyIsNoInput(t *testing.T) {
	files := map[string]string{"rec/a.wav": "RIFF"}
	doc := "transcriptions:\n  calls:\n    api: batch\n    language_code: hi-IN\n    output_dir: rec\n    inputs: [\"rec/*.wav\"]\n    redact: {kinds: all, audio: silence}\n"
	_, ds := load(t, doc, files, LoadOptions{})
	if ds.Err() == nil || !strings.Contains(ds.Err().Error(), `the redacted copy rec/a.redacted.wav would match input pattern "rec/*.wav"`) {
		t.Errorf("got %v", ds)
	}
	_, ds = load(t, strings.Replace(doc, "output_dir: rec", "output_dir: out", 1), files, LoadOptions{})
	if ds.HasErrors() {
		t.Errorf("another directory: %v", ds)
	}
}
