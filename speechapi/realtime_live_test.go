package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// liveEmu is an emulator of the live service with a live-profile client
// that sends audio as fast as the connection takes it and waits a short
// idle time after it (the emulator ends a segment in progress sooner: its
// quiet time is 40 ms at this time scale).
type liveEmu struct {
	*recogEmu
	mu       sync.Mutex
	received []map[string]any // what each realtime session asked for
}

// liveFast are realtime options that keep the tests quick.
func liveFast(lang string, rate int) speechapi.RealtimeOptions {
	return speechapi.RealtimeOptions{LanguageCode: lang, SampleRate: rate, Pace: speechapi.PaceUnlimited, IdleTimeout: 300 * time.Millisecond}
}

func newLiveEmu(t *testing.T, opts emulator.Options, cfg speechapi.Config) *liveEmu {
	t.Helper()
	e := &liveEmu{}
	opts.Profile = emulator.ProfileLive
	if opts.TimeScale == 0 {
		opts.TimeScale = 2000
	}
	opts.Received = func(route string, req map[string]any) {
		if route == "GET /stt/v3/stream" {
			e.mu.Lock()
			e.received = append(e.received, req)
			e.mu.Unlock()
		}
	}
	e.recogEmu = newRecogEmu(t, opts)
	cfg.BaseURL, cfg.Profile = e.http.URL, contract.ProfileLive
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	if cfg.RetryWaitMin == 0 {
		cfg.RetryWaitMin, cfg.RetryWaitMax = time.Millisecond, 5*time.Millisecond
	}
	c, err := speechapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.client = c
	return e
}

// liveRoundTrip is one live emulator shared by the tests that synthesize
// speech and transcribe it back, so that each text is synthesized once.
var liveRoundTrip = sync.OnceValue(func() *recogEmu {
	e := &recogEmu{srv: emulator.New(emulator.Options{TimeScale: 2000, Profile: emulator.ProfileLive})}
	e.http = httptest.NewServer(e.srv)
	c, err := speechapi.New(speechapi.Config{BaseURL: e.http.URL, APIKey: "k", Profile: contract.ProfileLive})
	if err != nil {
		panic(err)
	}
	e.client = c
	return e
})

func joined(res *speechapi.RealtimeResult) string {
	var got []string
	for _, s := range res.Segments {
		got = append(got, s.Text)
	}
	return normWords(strings.Join(got, " "))
}

// TestLiveRealtimeRoundTrip streams speech the live emulator spoke to it
// over the live protocol, at each rate the live service takes: the
// client resamples the 22.05 kHz recording, the emulator recognises it
// and sends its words back.
func TestLiveRealtimeRoundTrip(t *testing.T) {
	e := liveRoundTrip()
	for _, sp := range spokenTexts[:2] {
		rec := synthFor(t, e.client, sp.text, sp.lang, &speechapi.AudioConfig{SampleRate: 22050, Container: "wav"})
		seconds := wavSeconds(t, rec)
		for _, rate := range []int{16000, 8000, 44100, 48000} {
			res, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(rec), liveFast(sp.lang, rate))
			if err != nil {
				t.Fatalf("%s at %d Hz: %v", sp.lang, rate, err)
			}
			if got := joined(res); got != normWords(sp.text) {
				t.Errorf("%s at %d Hz: %q, want %q", sp.lang, rate, got, sp.text)
			}
			if d := res.AudioSent.Seconds() - seconds; math.Abs(d) > 0.01 {
				t.Errorf("%s at %d Hz: sent %v of %.3f s", sp.lang, rate, res.AudioSent, seconds)
			}
			for i, m := range res.Messages {
				if m.Type != "transcript" || m.SegmentIndex != i || m.SegmentID == "" || m.DetectedLanguage != sp.lang {
					t.Errorf("%s at %d Hz: message %d %+v", sp.lang, rate, i, m)
				}
				if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil {
					t.Errorf("message %d timestamp: %v", i, err)
				}
			}
			if res.Closed {
				t.Errorf("%s at %d Hz: the service closed the session; the client should have", sp.lang, rate)
			}
		}
	}
}

// wavSeconds is the duration of a WAV recording.
func wavSeconds(t *testing.T, b []byte) float64 {
	t.Helper()
	f, data, err := audio.ParseWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	return float64(len(data)) / float64(f.BlockAlign()) / float64(f.SampleRate)
}

// TestLiveRealtimeHeaders: the session is set up by the handshake
// headers, spelled as the service's client spells them, the format and
// native numerals among them; the transcript follows them.
func TestLiveRealtimeHeaders(t *testing.T) {
	e := newLiveEmu(t, emulator.Options{}, speechapi.Config{})
	const text = "मुझे दो लाख रुपये मिले।"
	rec := synthFor(t, e.client, text, "hi-IN", &speechapi.AudioConfig{SampleRate: 16000, Container: "wav"})
	tests := []struct {
		opts         speechapi.RealtimeOptions
		want         string
		wantReceived map[string]any
	}{
		{liveFast("hi-IN", 16000), text, map[string]any{"lang_code": "hi-IN", "x-sample-rate": "16000"}},
		{withITN(liveFast("hi-IN", 8000), false, "trace-1"), "मुझे ₹2,00,000 मिले।",
			map[string]any{"lang_code": "hi-IN", "x-sample-rate": "8000", "x-format": "transcribe", "x-api-request-id": "trace-1"}},
		{withITN(liveFast("hi-IN", 48000), true, ""), "मुझे ₹२,००,००० मिले।",
			map[string]any{"lang_code": "hi-IN", "x-sample-rate": "48000", "x-format": "transcribe", "itn_native_numerals": "true"}},
	}
	for i, tc := range tests {
		res, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(rec), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := joined(res); got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
		e.mu.Lock()
		got := e.received[len(e.received)-1]
		e.mu.Unlock()
		if !equalMaps(got, tc.wantReceived) {
			t.Errorf("case %d: the emulator received %v, want %v", i, got, tc.wantReceived)
		}
	}
	if s := e.stats(t); s.Requests["GET /stt/v3/stream"] != 3 || s.Requests["GET /stt/v3"] != 0 {
		t.Errorf("requests %v, want 3 sessions at /stt/v3/stream", s.Requests)
	}
}

func withITN(o speechapi.RealtimeOptions, native bool, requestID string) speechapi.RealtimeOptions {
	o.Format, o.NativeNumerals, o.RequestID = speechapi.FormatTranscribe, native, requestID
	return o
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestLiveRealtimeSegments: audio with long pauses gets a transcript per
// speech segment, and their durations cover the audio heard up to the
// last one; silence gets none, and the session still ends well, on the
// client's idle time.
func TestLiveRealtimeSegments(t *testing.T) {
	// A quiet time of 100 ms, under the client's idle time: frames sent
	// back to back never fall quiet, and the segments are the bursts.
	e := newLiveEmu(t, emulator.Options{TimeScale: 5}, speechapi.Config{})
	ctx := context.Background()
	clip := burstsWAV(t, 3, 0.8, 1.0, 16000)
	res, err := e.client.TranscribeRealtime(ctx, bytes.NewReader(clip), liveFast("en-IN", 16000))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Segments) != 3 {
		t.Fatalf("%d segments %+v, want one per burst", len(res.Segments), res.Segments)
	}
	for i, s := range res.Segments {
		if s.Index != i || s.Text == "" || s.End <= s.Start {
			t.Errorf("segment %d: %+v", i, s)
		}
	}
	// Segments run from one end to the next: the last ends where the
	// third burst's pause was heard (0.5 s into it), or at the end.
	if end := res.Segments[2].End; end < 3*time.Second || end > res.AudioSent {
		t.Errorf("segments end at %v of %v", end, res.AudioSent)
	}

	silent := wavBytes(t, 1, 2, 16000, kindSilent)
	res, err = e.client.TranscribeRealtime(ctx, bytes.NewReader(silent), liveFast("en-IN", 16000))
	if err != nil || len(res.Messages) != 0 || res.Closed {
		t.Errorf("silence: %v, %d messages, closed=%v; want no transcript and the client's close", err, len(res.Messages), res.Closed)
	}
	// The emulator bills a session when it sees the client's close, which
	// may come after the client has returned.
	deadline := time.Now().Add(2 * time.Second)
	for e.stats(t).BilledAudioSeconds < 7.3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s := e.stats(t); math.Abs(s.BilledAudioSeconds-(3*1.8+2)) > 0.1 {
		t.Errorf("billed %.2f s, want the %.1f s streamed", s.BilledAudioSeconds, 3*1.8+2)
	}
}

// burstsWAV is n bursts of noise-like speech of on seconds, each followed
// by off seconds of silence.
func burstsWAV(t *testing.T, n int, on, off float64, rate int) []byte {
	t.Helper()
	burst := wavBytes(t, 7, on, rate, kindSpeech)
	f, speech, err := audio.ParseWAV(burst)
	if err != nil {
		t.Fatal(err)
	}
	pause := make([]byte, int(off*float64(rate))*2)
	var data []byte
	for i := 0; i < n; i++ {
		data = append(append(data, speech...), pause...)
	}
	var buf bytes.Buffer
	if err := audio.WriteWAVHeader(&buf, f, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	buf.Write(data)
	return buf.Bytes()
}

// TestLiveRealtimePacedByDefault: to the live service the client sends
// audio in real time unless told otherwise; PaceUnlimited sends it at
// once.
func TestLiveRealtimePacedByDefault(t *testing.T) {
	e := newLiveEmu(t, emulator.Options{}, speechapi.Config{})
	clip := wavBytes(t, 3, 0.6, 16000, kindSpeech)
	opts := speechapi.RealtimeOptions{LanguageCode: "en-IN", IdleTimeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts); err != nil {
		t.Fatal(err)
	}
	// 0.6 s is 19 frames of 32 ms: the last goes out 18 frames after the
	// first, 576 ms.
	if el := time.Since(start); el < 570*time.Millisecond {
		t.Errorf("0.6 s of audio took %v: not paced", el)
	}
	opts.Pace = speechapi.PaceUnlimited
	start = time.Now()
	if _, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 450*time.Millisecond {
		t.Errorf("0.6 s of audio unpaced took %v", el)
	}
}

// TestLiveRealtimeRefused: what the live service refuses in an error
// message reaches the caller as a *RealtimeError, never sent again and
// never showing the key; what the client can tell is wrong is refused
// before any session.
func TestLiveRealtimeRefused(t *testing.T) {
	const key = "sk-live-0123456789"
	e := newLiveEmu(t, emulator.Options{Keys: []string{"the-right-key"}}, speechapi.Config{APIKey: key, Retries: 3})
	clip := wavBytes(t, 1, 0.5, 16000, kindSpeech)
	_, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), liveFast("hi-IN", 16000))
	var re *speechapi.RealtimeError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "API key is not valid") || speechapi.IsTemporary(err) {
		t.Errorf("refused key: %v, want a *RealtimeError", err)
	}
	noKey(t, err)

	good := newLiveEmu(t, emulator.Options{}, speechapi.Config{Retries: 3})
	_, err = good.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), liveFast("bn-BD", 16000))
	if !errors.As(err, &re) || !strings.Contains(re.Message, `unsupported lang_code "bn-BD"`) {
		t.Errorf("bn-BD: %v, want the service's error message", err)
	}
	for name, opts := range map[string]speechapi.RealtimeOptions{
		"two languages": liveFast("hi-IN,en-IN", 16000),
		"22050 Hz":      liveFast("hi-IN", 22050),
	} {
		if _, err := good.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts); err == nil || errors.As(err, &re) {
			t.Errorf("%s: %v, want the client's own refusal", name, err)
		}
	}
	if got := e.stats(t).Requests["GET /stt/v3/stream"] + good.stats(t).Requests["GET /stt/v3/stream"]; got != 2 {
		t.Errorf("%d sessions, want 2: an error message is not sent again, a bad option not sent at all", got)
	}
	// The documented service takes neither 44.1 kHz nor ITN in realtime.
	doc := newRecogEmu(t, emulator.Options{})
	for _, opts := range []speechapi.RealtimeOptions{{LanguageCode: "hi-IN", SampleRate: 44100}, withITN(speechapi.RealtimeOptions{LanguageCode: "hi-IN"}, false, "")} {
		if _, err := doc.client.TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts); err == nil {
			t.Errorf("documented profile took %+v", opts)
		}
	}
}

// TestLiveRealtimeCutIsSentAgain: a live session cut without a close is
// sent again from the start of the audio, each session an attempt.
func TestLiveRealtimeCutIsSentAgain(t *testing.T) {
	var retries int
	e := newLiveEmu(t, emulator.Options{DropRate: 1}, speechapi.Config{Retries: 2, OnRetry: func(string, int, error) { retries++ }})
	_, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(wavBytes(t, 4, 1, 16000, kindSpeech)), liveFast("en-IN", 16000))
	var ie *speechapi.IncompleteError
	if !errors.As(err, &ie) {
		t.Fatalf("cut sessions: %v, want an *IncompleteError", err)
	}
	s := e.stats(t)
	if s.Requests["GET /stt/v3/stream"] != 3 || retries != 2 || s.FaultsInjected["drop"] != 3 || s.BilledAudioSeconds != 0 {
		t.Errorf("sessions %d, retries %d, drops %d, billed %.1f s: want 3 attempts, all cut, none billed",
			s.Requests["GET /stt/v3/stream"], retries, s.FaultsInjected["drop"], s.BilledAudioSeconds)
	}
}

// TestLiveRESTAnswer: the live REST answer has no timestamp and adds the
// model and two timings, which the client keeps; the body is kept as
// sent.
func TestLiveRESTAnswer(t *testing.T) {
	e := newLiveEmu(t, emulator.Options{}, speechapi.Config{})
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 5, 1, 16000, kindSpeech))
	res, err := e.client.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: "en-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model == "" || res.Timestamp != "" || res.ProcessingTime < 0 || res.EndToEndLatency < res.ProcessingTime || res.Transcript == "" {
		t.Errorf("answer %+v", res)
	}
	for _, k := range []string{`"model"`, `"processing_time"`, `"end_to_end_latency"`} {
		if !bytes.Contains(res.Raw, []byte(k)) {
			t.Errorf("raw answer %s lacks %s", res.Raw, k)
		}
	}
	if bytes.Contains(res.Raw, []byte(`"timestamp"`)) {
		t.Errorf("raw answer %s has a timestamp", res.Raw)
	}
	_, err = e.client.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: "hi-IN,en-IN"})
	if err == nil || !strings.Contains(err.Error(), "one language code") {
		t.Errorf("two languages: %v", err)
	}
}

// TestLiveSynthesisModelNames: the live service knows the documented
// models by their live names only; the documented one by its own.
func TestLiveSynthesisModelNames(t *testing.T) {
	live := newEmu(t, emulator.Options{Profile: emulator.ProfileLive, NoEspeak: true}, speechapi.Config{})
	doc := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{})
	req := func(model, voice string) *speechapi.SynthesisRequest {
		r := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Your table is ready.", Model: model, Voice: voice,
			AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 8000}}}
		if model == "timbre-v2.5" || model == "tts-v2.5" {
			r.Language = "en-IN"
		}
		return r
	}
	for _, tc := range []struct {
		e           *emu
		model, voic string
		ok          bool
	}{
		{live, "timbre-v2.5", "Trupti", true},
		{live, "timbre-v2.0", "Shubhra", true},
		{live, "vachana-voice-v3", "Pranav", true},
		{live, "tts-v2.5", "Kaveri", false},
		{live, "tts-v2.0", "Pranav", false},
		{live, "timbre-v2.5", "Aditi", false}, // no such voice
		{doc, "tts-v2.5", "Kaveri", true},
		{doc, "timbre-v2.5", "Kaveri", false},
		{doc, "tts-v2.5", "Trupti", true}, // beyond the documents' five examples
		{doc, "tts-v2.5", "Aditi", false},
	} {
		_, err := tc.e.client.Synthesize(context.Background(), req(tc.model, tc.voic), &memFile{})
		var se *speechapi.Error
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s %s: %v", tc.model, tc.voic, err)
		case !tc.ok && (!errors.As(err, &se) || se.StatusCode != 400 || se.Type != speechapi.TypeInvalidRequest):
			t.Errorf("%s %s: %v, want 400 INVALID_REQUEST_ERROR", tc.model, tc.voic, err)
		}
	}
}

// TestLiveSynthesisOpus: the live service's Opus is container raw with
// encoding oggopus, an Ogg Opus file; container ogg is refused.
func TestLiveSynthesisOpus(t *testing.T) {
	live := newEmu(t, emulator.Options{Profile: emulator.ProfileLive, NoEspeak: true}, speechapi.Config{})
	req := func(container, encoding string) *speechapi.SynthesisRequest {
		return &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello.", Model: "timbre-v2.5", Voice: "Kaveri", Language: "en-IN",
			AudioConfig: &speechapi.AudioConfig{Container: container, Encoding: encoding, SampleRate: 48000}}}
	}
	var out memFile
	if _, err := live.client.Synthesize(context.Background(), req("raw", "oggopus"), &out); err != nil {
		t.Fatal(err)
	}
	if b := out.Bytes(); !bytes.HasPrefix(b, []byte("OggS")) || !bytes.Contains(b[:min(len(b), 64)], []byte("OpusHead")) {
		t.Errorf("raw oggopus is not an Ogg Opus file: % x", b[:min(len(b), 40)])
	}
	for _, enc := range []string{"", "oggopus"} {
		_, err := live.client.Synthesize(context.Background(), req("ogg", enc), &memFile{})
		var se *speechapi.Error
		if !errors.As(err, &se) || se.StatusCode != 400 || !strings.Contains(se.Message, "container raw with encoding oggopus") {
			t.Errorf("container ogg, encoding %q: %v", enc, err)
		}
	}
}

// TestProfileConfig: a client names a profile it knows, or none.
func TestProfileConfig(t *testing.T) {
	if _, err := speechapi.New(speechapi.Config{BaseURL: "https://example.com", Profile: "staging"}); err == nil {
		t.Error("profile staging accepted")
	}
	c, err := speechapi.New(speechapi.Config{BaseURL: "https://example.com"})
	if err != nil || c.Profile() != contract.ProfileDocumented {
		t.Errorf("no profile: %v, %v", c.Profile(), err)
	}
}
