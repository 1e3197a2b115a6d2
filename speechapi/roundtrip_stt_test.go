package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// roundTrip is one emulator shared by the round-trip tests, so that each
// text is synthesized once (the registry that maps audio back to its text
// lives in the emulator that spoke it).
var roundTrip = sync.OnceValue(func() *recogEmu {
	e := &recogEmu{srv: emulator.New(emulator.Options{TimeScale: 2000})}
	e.http = httptest.NewServer(e.srv)
	c, err := speechapi.New(speechapi.Config{BaseURL: e.http.URL, APIKey: "k"})
	if err != nil {
		panic(err)
	}
	e.client = c
	return e
})

var synthCache sync.Map // text|lang|config -> []byte

// synthesize makes audio with the emulator's synthesis and returns it.
func synthFor(t *testing.T, c *speechapi.Client, text, lang string, cfg *speechapi.AudioConfig) []byte {
	t.Helper()
	key := fmt.Sprintf("%p|%s|%s|%+v", c, text, lang, *cfg)
	if b, ok := synthCache.Load(key); ok {
		return b.([]byte)
	}
	var buf bytes.Buffer
	model := c.Profile().WireModel("tts-v2.5") // the name the client's service knows
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: model, Voice: "Nalini", Language: lang, AudioConfig: cfg}}
	if _, err := c.Synthesize(context.Background(), req, &buf); err != nil {
		t.Fatalf("synthesize %q: %v", text, err)
	}
	synthCache.Store(key, buf.Bytes())
	return buf.Bytes()
}

func normWords(s string) string { return strings.Join(strings.Fields(s), " ") }

var spokenTexts = []struct{ lang, text string }{
	{"en-IN", "Thank you for calling. Your order has shipped and will arrive on Monday."},
	{"hi-IN", "नमस्ते, आपका खाता सक्रिय है। धन्यवाद।"},
	{"ta-IN", "வணக்கம், உங்கள் கணக்கு தயாராக உள்ளது."},
	{"bn-IN", "নমস্কার, আপনার অ্যাকাউন্ট প্রস্তুত।"},
}

// TestRoundTripREST synthesizes speech and transcribes it back over REST.
// conformance: STT-008, STT-028
func TestRoundTripREST(t *testing.T) {
	e := roundTrip()
	dir := t.TempDir()
	for _, sp := range spokenTexts {
		t.Run(sp.lang, func(t *testing.T) {
			audio := synthFor(t, e.client, sp.text, sp.lang, &speechapi.AudioConfig{SampleRate: 22050, Container: "wav"})
			res, err := e.client.Transcribe(context.Background(), writeAudioFile(t, dir, sp.lang+".wav", audio), speechapi.TranscribeOptions{LanguageCode: sp.lang})
			if err != nil {
				t.Fatal(err)
			}
			if normWords(res.Transcript) != normWords(sp.text) {
				t.Errorf("transcript %q, want %q", res.Transcript, sp.text)
			}
		})
	}
}

// TestRoundTripRealtime streams synthesized audio over the realtime
// WebSocket, at both rates (at 8 kHz the padded last frame is longer than
// the emulator's slack in the length of a recording it recognises).
// conformance: RT-004, RT-012
func TestRoundTripRealtime(t *testing.T) {
	e := roundTrip()
	for _, sp := range spokenTexts[:3] {
		t.Run(sp.lang, func(t *testing.T) {
			for _, rate := range []int{16000, 8000} {
				audio := synthFor(t, e.client, sp.text, sp.lang, &speechapi.AudioConfig{SampleRate: rate, Container: "wav"})
				res, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(audio), speechapi.RealtimeOptions{LanguageCode: sp.lang, SampleRate: rate})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range res.Segments {
					got = append(got, s.Text)
				}
				if normWords(strings.Join(got, " ")) != normWords(sp.text) {
					t.Errorf("%d Hz: segments %q, want %q", rate, got, sp.text)
				}
			}
		})
	}
}

// TestRoundTripBatchJob transcribes synthesized mp3 and mu-law WAV in a
// batch job, with language identification among three codes.
// conformance: BJ-040, BJ-006, BJ-090, BJ-091, BJ-092, BJ-044
func TestRoundTripBatchJob(t *testing.T) {
	e := roundTrip()
	dir := t.TempDir()
	var files []speechapi.Source
	want := map[string]string{}
	for i, sp := range spokenTexts[:3] {
		cfg := &speechapi.AudioConfig{Container: "mp3", SampleRate: 22050}
		name := sp.lang + ".mp3"
		data := []byte(nil)
		if i == 1 {
			// Telephony: raw mu-law at 8 kHz, put in a WAV by the caller.
			raw := synthFor(t, e.client, sp.text, sp.lang, &speechapi.AudioConfig{Container: "mulaw"})
			var buf bytes.Buffer
			f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw}
			if err := audio.WriteWAVHeader(&buf, f, int64(len(raw))); err != nil {
				t.Fatal(err)
			}
			buf.Write(raw)
			data, name = buf.Bytes(), sp.lang+".wav"
		} else {
			data = synthFor(t, e.client, sp.text, sp.lang, cfg)
		}
		files = append(files, writeAudioFile(t, dir, name, data))
		want[name] = sp.lang
	}
	files = append(files, writeAudioFile(t, dir, "other.wav", wavBytes(t, 9, 2, 16000, kindSpeech)))
	want["other.wav"] = "te-IN" // not synthesized: the first code, the fallback
	cfg := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "te-IN,en-IN,hi-IN"}
	res, err := e.client.RunJob(context.Background(), cfg, files, speechapi.RunOptions{Poll: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		var buf bytes.Buffer
		if _, err := e.client.DownloadTranscript(context.Background(), f.JobID, f.Record, &buf); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			LanguageCode   string `json:"language_code"`
			FullTranscript string `json:"full_transcript"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f.Record.OriginalPath)
		lang := want[name]
		if sp := spokenIn(want[name]); sp != "" && normWords(doc.FullTranscript) != normWords(sp) {
			t.Errorf("%s: transcript %q, want %q", name, doc.FullTranscript, sp)
		}
		if strings.Contains("te-IN,en-IN,hi-IN", lang) && doc.LanguageCode != lang {
			t.Errorf("%s: language %s, want %s", name, doc.LanguageCode, lang)
		}
		if lang == "ta-IN" && doc.LanguageCode != "te-IN" {
			t.Errorf("%s: Tamil audio not in the list identified as %s, want the fallback te-IN", name, doc.LanguageCode)
		}
	}
}

func spokenIn(lang string) string {
	for _, sp := range spokenTexts {
		if sp.lang == lang {
			return sp.text
		}
	}
	return ""
}

// TestRoundTripITN transcribes the same synthesized speech with each
// format: the transcript follows it, over REST and the older batch.
// conformance: STT-006, STT-007, STT-008, STT-010, STT-013, STT-022, STT-023, STT-024, STT-025, OB-019, OB-020
func TestRoundTripITN(t *testing.T) {
	e := roundTrip()
	dir := t.TempDir()
	tests := []struct {
		lang, text string
		format     string
		native     bool
		want       string
	}{
		{"en-IN", "I paid five hundred rupees on the twenty first.", "transcribe", false, "I paid ₹500 on the 21st."},
		{"en-IN", "I paid five hundred rupees on the twenty first.", "verbatim", false, "I paid five hundred rupees on the twenty first."},
		{"en-IN", "I paid five hundred rupees on the twenty first.", "transcribe", true, "I paid ₹500 on the 21st."},
		{"hi-IN", "मुझे दो लाख रुपये मिले।", "transcribe", false, "मुझे ₹2,00,000 मिले।"},
		{"hi-IN", "मुझे दो लाख रुपये मिले।", "transcribe", true, "मुझे ₹२,००,००० मिले।"},
		{"hi-IN", "मुझे दो लाख रुपये मिले।", "verbatim", true, "मुझे दो लाख रुपये मिले।"},
	}
	for _, tc := range tests {
		audio := synthFor(t, e.client, tc.text, tc.lang, &speechapi.AudioConfig{SampleRate: 22050, Container: "wav"})
		src := writeAudioFile(t, dir, "itn.wav", audio)
		res, err := e.client.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: tc.lang, Format: tc.format, NativeNumerals: tc.native})
		if err != nil {
			t.Fatal(err)
		}
		if res.Transcript != tc.want {
			t.Errorf("%s %s native=%v: %q, want %q", tc.lang, tc.format, tc.native, res.Transcript, tc.want)
		}
		// The older batch applies the same ITN.
		sub, err := e.client.SubmitLegacy(context.Background(), []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: tc.lang, Format: tc.format, NativeNumerals: tc.native})
		if err != nil {
			t.Fatal(err)
		}
		job, err := e.client.WaitLegacy(context.Background(), sub.JobID, fastPoll)
		if err != nil {
			t.Fatal(err)
		}
		if got := job.Results[0].FullTranscript; got != tc.want {
			t.Errorf("older batch %s %s native=%v: %q, want %q", tc.lang, tc.format, tc.native, got, tc.want)
		}
	}
	_ = os.Remove(filepath.Join(dir, "itn.wav"))
	checkITNDefaults(t, e)
}

// checkITNDefaults sends requests that leave format and
// itn_native_numerals out, as the client never does: format defaults to
// verbatim, itn_native_numerals to false (the digits 0 to 9), and the
// older batch takes them as optional fields.
func checkITNDefaults(t *testing.T, e *recogEmu) {
	t.Helper()
	audio := synthFor(t, e.client, "मुझे दो लाख रुपये मिले।", "hi-IN", &speechapi.AudioConfig{SampleRate: 22050, Container: "wav"})
	for _, tc := range []struct {
		fields map[string]string
		want   string
	}{
		{map[string]string{"language_code": "hi-IN"}, "मुझे दो लाख रुपये मिले।"},
		{map[string]string{"language_code": "hi-IN", "format": "transcribe"}, "मुझे ₹2,00,000 मिले।"},
	} {
		status, body := rawMultipart(t, e.http.URL+"/stt/v3", tc.fields, "audio_file", 1, audio)
		var res struct {
			Transcript string `json:"transcript"`
		}
		if err := json.Unmarshal([]byte(body), &res); err != nil || status != 200 || res.Transcript != tc.want {
			t.Errorf("REST with %v: %d %s, want transcript %q", tc.fields, status, body, tc.want)
		}
		status, body = rawMultipart(t, e.http.URL+"/stt/v3/batch/submit", tc.fields, "audio_files", 1, audio)
		var sub struct {
			JobID string `json:"job_id"`
		}
		if err := json.Unmarshal([]byte(body), &sub); err != nil || status != 200 || sub.JobID == "" {
			t.Errorf("older batch with %v: %d %s", tc.fields, status, body)
			continue
		}
		job, err := e.client.WaitLegacy(context.Background(), sub.JobID, fastPoll)
		if err != nil || len(job.Results) != 1 || job.Results[0].FullTranscript != tc.want {
			t.Errorf("older batch with %v: %v %+v, want transcript %q", tc.fields, err, job, tc.want)
		}
	}
}

// TestRoundTripMixedEnglishHindi transcribes code-mixed speech with en-IN:
// the answer is in Latin script.
// conformance: STT-002
func TestRoundTripMixedEnglishHindi(t *testing.T) {
	e := roundTrip()
	text := "मेरा order कब आएगा?"
	audio := synthFor(t, e.client, text, "hi-en", &speechapi.AudioConfig{SampleRate: 22050, Container: "wav"})
	src := writeAudioFile(t, t.TempDir(), "mixed.wav", audio)
	res, err := e.client.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: "en-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Transcript != "meraa order kab aaegaa?" {
		t.Errorf("en-IN transcript %q, want Latin script", res.Transcript)
	}
	res, err = e.client.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
	if err != nil || res.Transcript != text {
		t.Errorf("hi-IN transcript %q %v, want %q", res.Transcript, err, text)
	}
}
