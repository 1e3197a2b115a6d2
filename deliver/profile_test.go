package deliver

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestBuiltinsValidate(t *testing.T) {
	for _, n := range BuiltinNames() {
		if ps := Validate(Builtin(n)); len(ps) > 0 {
			t.Errorf("%s: %v", n, ps)
		}
	}
}

func TestCanonicalIgnoresName(t *testing.T) {
	a, b := Builtin("telephony"), Builtin("telephony")
	b.Name = "ivr"
	if string(a.Canonical()) != string(b.Canonical()) {
		t.Fatal("name changed the canonical form")
	}
	b.Peak.Max = -2
	if string(a.Canonical()) == string(b.Canonical()) {
		t.Fatal("a rule change left the canonical form alone")
	}
}

func TestCheckNamesEachFailingRule(t *testing.T) {
	p := Builtin("acx")
	m := Measured{Container: "mp3", Codec: "mp3", SampleRate: 22050, Channels: 1, BitrateMode: VBR, Bitrate: 64000,
		RMS: -25, SamplePeak: -1, NoiseFloor: -80, Head: 0.1, Tail: 2, Seconds: 10, Bytes: 1000}
	var failed []string
	for _, r := range Failed(Check(p, m)) {
		failed = append(failed, r.Rule)
	}
	want := []string{"sample_rate", "bitrate_mode", "bitrate", "loudness", "peak", "head"}
	if len(failed) != len(want) {
		t.Fatalf("failed %v, want %v", failed, want)
	}
	for i := range want {
		if failed[i] != want[i] {
			t.Fatalf("failed %v, want %v", failed, want)
		}
	}
}

func TestMeasuredJSONSilenceIsNull(t *testing.T) {
	m := Measured{Container: "wav", RMS: -20, NoiseFloor: math.Inf(-1)}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"noise_floor_db":null`) || !strings.Contains(string(b), `"rms_db":-20`) || strings.Count(string(b), `"rms_db"`) != 1 {
		t.Fatalf("%s", b)
	}
}

func TestValidateRefusesConstantBitRateAAC(t *testing.T) {
	p := Builtin("podcast")
	p.Encoding.Container, p.Encoding.Codec = ContainerMP4, CodecAAC
	ps := Validate(p)
	if len(ps) != 1 || ps[0].Field != "encoding.bitrate_mode" {
		t.Fatalf("%v", ps)
	}
	p.Encoding.BitrateMode = VBR
	if ps := Validate(p); len(ps) != 0 {
		t.Fatalf("%v", ps)
	}
}

// TestValidateOpusAt48k: an Opus profile at another rate than 48000 Hz is
// refused when it is declared: an Opus stream is decoded at 48000 Hz, so
// mastering measured every such file at 48000 and failed it after the
// work.
func TestValidateOpusAt48k(t *testing.T) {
	p := &Profile{Name: "web", Encoding: Encoding{Container: ContainerOgg, Codec: CodecOpus,
		SampleRate: 24000, Channels: 1, BitrateMode: VBR, Bitrate: 64000}}
	ps := Validate(p)
	if len(ps) != 1 || ps[0].Field != "encoding.sample_rate" || !strings.Contains(ps[0].Message, "decoded, and so measured, at 48000 Hz") {
		t.Fatalf("opus at 24000 Hz: %v, want one problem naming why", ps)
	}
	p.Encoding.SampleRate = 48000
	if ps := Validate(p); len(ps) != 0 {
		t.Fatalf("opus at 48000 Hz: %v", ps)
	}
}
