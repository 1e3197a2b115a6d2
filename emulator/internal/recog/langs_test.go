package recog

import (
	"math"
	"slices"
	"testing"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// conformance: BJ-001, BJ-002, BJ-006, BJ-090, BJ-091, BJ-092, BJ-093, STT-001
func TestLanguages(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"hi-IN", []string{"hi-IN"}, true},
		{"bn-BD", []string{"bn-BD"}, true},
		{"hi-IN, en-IN,ta-IN", []string{"hi-IN", "en-IN", "ta-IN"}, true},
		{"gu-IN", nil, false},
		{"pa-IN", nil, false},
		{"hi-IN,en-IN,ta-IN,te-IN", nil, false},
		{"hi-IN,hi-IN", nil, false},
		{"", nil, false},
	} {
		got, ok := parseJobLanguages(tc.in)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("parseJobLanguages(%q) = %v %v", tc.in, got, ok)
		}
	}
	if restLanguage("bn-BD") || !restLanguage("gu-IN") || !restLanguage("pa-IN") || len(restLanguages) != 10 {
		t.Error("REST language set")
	}
	for _, tc := range []struct {
		codes  []string
		spoken string
		want   string
	}{
		{[]string{"ta-IN"}, "hi-IN", "ta-IN"}, // one code: no identification
		{[]string{"ta-IN", "hi-IN"}, "hi-IN", "hi-IN"},
		{[]string{"ta-IN", "hi-IN"}, "", "ta-IN"}, // unknown audio: the first, the fallback
		{[]string{"ta-IN", "en-IN"}, "hi-en", "en-IN"},
		{[]string{"ta-IN", "en-IN"}, "auto", "ta-IN"},
	} {
		if got := identify(tc.codes, tc.spoken); got != tc.want {
			t.Errorf("identify(%v, %q) = %s, want %s", tc.codes, tc.spoken, got, tc.want)
		}
	}
}

func TestSniff(t *testing.T) {
	for want, head := range map[string]string{
		"wav": "RIFF\x00\x00\x00\x00WAVEfmt ", "mp3": "ID3\x04", "ogg": "OggS\x00\x02" + string(make([]byte, 22)) + "\x01vorbis",
		"opus": "OggS" + string(make([]byte, 24)) + "OpusHead", "flac": "fLaC", "m4a": "\x00\x00\x00\x20ftypM4A ",
		"webm": "\x1a\x45\xdf\xa3", "amr": "#!AMR\n", "unknown": "hello",
	} {
		if got := sniff([]byte(head)); got != want {
			t.Errorf("sniff(%q) = %s, want %s", head, got, want)
		}
	}
}

func TestNoSpeech(t *testing.T) {
	flat := make([]float32, 100)
	for i := range flat {
		flat[i] = 0.3
	}
	speech := make([]float32, 100)
	for i := range speech {
		speech[i] = float32(math.Abs(math.Sin(float64(i) / 4)))
	}
	for name, tc := range map[string]struct {
		env          []float32
		silent, tone bool
	}{
		"silence": {make([]float32, 100), true, false},
		"tone":    {flat, false, true},
		"speech":  {speech, false, false},
	} {
		s, tn := noSpeech(tc.env)
		if s != tc.silent || tn != tc.tone {
			t.Errorf("%s: silent %v tone %v", name, s, tn)
		}
	}
}

// conformance: STT-002
func TestRomanize(t *testing.T) {
	for in, want := range map[string]string{
		"नमस्ते":              "namaste",
		"मेरा order कब आएगा?": "meraa order kab aaegaa?",
		"धन्यवाद।":            "dhanyavaad.",
		"hello":               "hello",
		"किताब ज़रूर पढ़ें":   "kitaab zaroor parhen",
	} {
		if got := romanize(in); got != want {
			t.Errorf("romanize(%q) = %q, want %q", in, got, want)
		}
	}
	a := &analysis{Known: true, Spoken: emuSpoken("मेरा order कब आएगा?"), Seconds: 2, Size: 1}
	for _, s := range a.segments("en-IN", 1, 0) {
		if hasDevanagari(s.Text) {
			t.Errorf("en-IN segment in Devanagari: %q", s.Text)
		}
	}
	if s := a.segments("hi-IN", 1, 0); !hasDevanagari(s[0].Text) {
		t.Errorf("hi-IN segment romanized: %q", s[0].Text)
	}
}

func emuSpoken(text string) emu.Spoken { return emu.Spoken{Text: text, Language: "hi-en"} }
