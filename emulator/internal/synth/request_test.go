package synth

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conformance: TTS-001, TTS-002, TTS-003, TTS-005, TTS-007, TTS-008, TTS-009, TTS-011, TTS-012, TTS-013, TTS-014, TTS-015, TTS-017, TTS-019, TTS-020, TTS-022, TTS-025, TTS-027, TTS-028, TTS-030, TTS-032, TTS-046, TTS-047, TTS-048, TTS-049, TTS-058, VC-005, VC-006, VC-008, ERR-005
func TestParseJobValidation(t *testing.T) {
	const emb = `"speaker_embedding": {"embedding": "AAAA", "shape": [1, 768], "dtype": "float32"}`
	cases := []struct {
		name, body string
		wantErr    string // substring; empty: valid
	}{
		{"v2.5 minimal", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, ""},
		{"v2.0 no language", `{"text": "hi", "model": "tts-v2.0", "voice": "Pranav"}`, ""},
		{"v2.0 IND-IN", `{"text": "hi", "model": "tts-v2.0", "voice": "Shubhra", "language": "IND-IN"}`, ""},
		{"v2.0 hi-IN", `{"text": "hi", "model": "tts-v2.0", "voice": "Deepak", "language": "hi-IN"}`, "language"},
		{"v3.0 Shivani", `{"text": "hi", "model": "tts-v3.0", "voice": "Shivani", "language": "hi-IN", "speed": 0.9}`, ""},
		{"v3.0 Avinash", `{"text": "hi", "model": "tts-v3.0", "voice": "Avinash", "language": "en-IN"}`, ""},
		{"vc-v1", `{"text": "hi", "model": "vc-v1", ` + emb + `}`, ""},
		{"missing text", `{"model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, "text is required"},
		{"missing model", `{"text": "hi", "voice": "Kaveri", "language": "hi-IN"}`, "model is required"},
		{"unknown model", `{"text": "hi", "model": "tts-v9", "voice": "Kaveri", "language": "hi-IN"}`, "not supported"},
		{"model case", `{"text": "hi", "model": "TTS-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, "not supported"},
		{"missing voice", `{"text": "hi", "model": "tts-v2.5", "language": "hi-IN"}`, "voice is required"},
		{"unknown voice", `{"text": "hi", "model": "tts-v2.5", "voice": "Nobody", "language": "hi-IN"}`, "voice \"Nobody\""},
		{"v2.0 voice not in its four", `{"text": "hi", "model": "tts-v2.0", "voice": "Nalini"}`, "not supported"},
		{"voice with vc-v1", `{"text": "hi", "model": "vc-v1", "voice": "Kaveri", ` + emb + `}`, "not used with vc-v1"},
		{"vc-v1 no embedding", `{"text": "hi", "model": "vc-v1"}`, "speaker_embedding is required"},
		{"vc-v1 bad shape", `{"text": "hi", "model": "vc-v1", "speaker_embedding": {"embedding": "A", "shape": [1, 512], "dtype": "float32"}}`, "shape"},
		{"missing language v2.5", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri"}`, "language is required"},
		{"unknown language", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "fr-FR"}`, "language \"fr-FR\""},
		{"speed slow", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "speed": "slow"}`, ""},
		{"speed 1.16", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "speed": 1.16}`, "out of range"},
		{"speed 0.84", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "speed": 0.84}`, "out of range"},
		{"speed word", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "speed": "quick"}`, "slow, medium, fast"},
		{"speed v2.0", `{"text": "hi", "model": "tts-v2.0", "voice": "Pranav", "speed": 1.0}`, "not supported by tts-v2.0"},
		{"rate 11025", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"sample_rate": 11025}}`, "not supported"},
		{"rate 96000", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"sample_rate": 96000}}`, "out of range"},
		{"channels 9", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"num_channels": 9}}`, "num_channels"},
		{"channels 8", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"num_channels": 8}}`, ""},
		{"width 5", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"sample_width": 5}}`, "sample_width"},
		{"width 0", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"sample_width": 0}}`, "sample_width"},
		{"encoding unknown", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"encoding": "flac"}}`, "encoding"},
		{"container unknown", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "flac"}}`, "container"},
		{"mp3 without encoding", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "mp3", "bitrate": "192k"}}`, ""},
		{"bitrate unknown", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "mp3", "bitrate": "100k"}}`, "bitrate"},
		{"wav with pcm_mulaw", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "wav", "encoding": "pcm_mulaw"}}`, "does not fit"},
		{"mp3 3 channels", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "mp3", "num_channels": 3}}`, "mp3"},
		{"tag-only v2.5", `{"text": "<laugh> <sigh>", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, "only of audio tags"},
		{"tag-only v3.0", `{"text": "<laugh>", "model": "tts-v3.0", "voice": "Shivani", "language": "hi-IN"}`, ""},
		{"unknown tag only v3.0", `{"text": "<Laugh>", "model": "tts-v3.0", "voice": "Shivani", "language": "hi-IN"}`, "only of audio tags"},
		{"empty text", `{"text": "  ", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, "text is empty"},
		{"too long", `{"text": "` + strings.Repeat("a", 101) + `", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`, "maximum is 100"},
		{"not json", `text=hi`, "not a valid synthesis request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseJob([]byte(c.body), 100)
			var re *requestError
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("want error containing %q, got none", c.wantErr)
			case c.wantErr != "" && (!errors.As(err, &re) || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want a request error containing %q", err, c.wantErr)
			}
		})
	}
}

// conformance: TTS-012, TTS-013, TTS-014, TTS-010, TTS-009, TTS-018, TTS-021, TTS-024, TTS-026, TTS-029, TTS-031, TTS-040, TTS-041, TTS-042, TTS-043, TTS-044, TTS-045
func TestParseJobResolves(t *testing.T) {
	cases := []struct {
		body  string
		speed float64
		lang  string
		f     outFormat
	}{
		{`{"text": "a", "model": "tts-v2.0", "voice": "Pranav"}`, 1, "IND-IN", outFormat{"wav", 48000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "speed": "slow"}`, 0.85, "hi-IN", outFormat{"wav", 48000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "speed": "medium"}`, 1, "hi-IN", outFormat{"wav", 48000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v3.0", "voice": "Avinash", "speed": "fast"}`, 1.15, "", outFormat{"wav", 48000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "mulaw", "sample_rate": 48000, "num_channels": 2}}`, 1, "auto", outFormat{"mulaw", 8000, 2, 1, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "alaw", "sample_rate": 16000}}`, 1, "auto", outFormat{"alaw", 8000, 1, 1, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "raw", "encoding": "pcm_mulaw"}}`, 1, "auto", outFormat{"mulaw", 8000, 1, 1, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "raw", "encoding": "pcm_alaw"}}`, 1, "auto", outFormat{"alaw", 8000, 1, 1, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "raw", "encoding": "oggopus", "sample_rate": 24000}}`, 1, "auto", outFormat{"ogg", 24000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "ogg", "encoding": "oggopus"}}`, 1, "auto", outFormat{"ogg", 48000, 1, 2, "128k"}},
		{`{"text": "a", "model": "tts-v2.5", "voice": "Kaveri", "language": "auto", "audio_config": {"container": "mp3", "bitrate": "32k", "sample_rate": 22050}}`, 1, "auto", outFormat{"mp3", 22050, 1, 2, "32k"}},
	}
	for _, c := range cases {
		j, err := parseJob([]byte(c.body), 5000)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if j.Speed != c.speed || j.Language != c.lang {
			t.Errorf("%s: speed %v language %q, want %v %q", c.body, j.Speed, j.Language, c.speed, c.lang)
		}
		if diff := cmp.Diff(c.f, j.Format); diff != "" {
			t.Errorf("%s: format (-want +got):\n%s", c.body, diff)
		}
	}
}

// conformance: TTS-004, TTS-050, TTS-051, TTS-052, TTS-053, TTS-055, TTS-056, TTS-057
func TestParseTags(t *testing.T) {
	cases := []struct {
		text   string
		render bool
		want   []part
		spoken string
	}{
		{"Hello <laugh> there", true, []part{{Text: "Hello "}, {Tag: "laugh"}, {Text: " there"}}, "Hello there"},
		{"a <clears throat> b", true, []part{{Text: "a "}, {Tag: "clears throat"}, {Text: " b"}}, "a b"},
		{"a <clears  throat> b", true, []part{{Text: "a  b"}}, "a b"},
		{"a <Laugh> b", true, []part{{Text: "a  b"}}, "a b"},
		{"a <pauses> b", true, []part{{Text: "a "}, {Tag: "pauses"}, {Text: " b"}}, "a b"},
		{"a <laugh> b", false, []part{{Text: "a  b"}}, "a b"},
		{"x < y and y > z", true, []part{{Text: "x  z"}}, "x z"},
		{"1 < 2", true, []part{{Text: "1 < 2"}}, "1 < 2"},
		{"a <b <sigh>", true, []part{{Text: "a <b "}, {Tag: "sigh"}}, "a <b"},
		{"<whispers>secret</whispers>", true, []part{{Tag: "whispers"}, {Text: "secret"}}, "secret"},
	}
	for _, c := range cases {
		got := parseTags(c.text, c.render)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("parseTags(%q, %v) (-want +got):\n%s", c.text, c.render, diff)
		}
		if s := spokenText(got); s != c.spoken {
			t.Errorf("spokenText(%q) = %q, want %q", c.text, s, c.spoken)
		}
	}
}

func TestExtraVoices(t *testing.T) {
	body := []byte(`{"text": "hi", "model": "tts-v2.5", "voice": "Arjun", "language": "hi-IN"}`)
	if _, err := parseJob(body, 100); err == nil {
		t.Fatal("Arjun is not a built-in voice")
	}
	if _, err := parseJobWith(body, 100, map[string][]string{"tts-v2.5": {"Arjun"}}); err != nil {
		t.Fatalf("an extra voice must be accepted: %v", err)
	}
}
