package speechapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// conformance: TTS-001, TTS-005, TTS-007, TTS-008, TTS-015, TTS-017, TTS-019, TTS-020, TTS-022, TTS-025, TTS-027, TTS-030, TTS-032, TTS-049, TTS-058, VC-006, ERR-004, ERR-005
func TestSynthesisInvalidRequestsAreRejectedOnEveryTransport(t *testing.T) {
	e := newEmu(t, emulator.Options{MaxText: 200}, speechapi.Config{})
	base := func() speechapi.SynthesisRequest {
		return speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Namaste", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 16000}}}
	}
	cases := []struct {
		name   string
		change func(r *speechapi.SynthesisRequest)
	}{
		{"unknown model", func(r *speechapi.SynthesisRequest) { r.Model = "tts-v4" }},
		{"missing model", func(r *speechapi.SynthesisRequest) { r.Model = "" }},
		{"unknown voice", func(r *speechapi.SynthesisRequest) { r.Voice = "Zed" }},
		{"missing voice", func(r *speechapi.SynthesisRequest) { r.Voice = "" }},
		{"v2.0 voice set", func(r *speechapi.SynthesisRequest) { r.Model, r.Language = "tts-v2.0", ""; r.Voice = "Girish" }},
		{"unknown language", func(r *speechapi.SynthesisRequest) { r.Language = "en-US" }},
		{"missing language", func(r *speechapi.SynthesisRequest) { r.Language = "" }},
		{"v2.0 language", func(r *speechapi.SynthesisRequest) { r.Model, r.Voice = "tts-v2.0", "Pranav" }},
		{"speed too fast", func(r *speechapi.SynthesisRequest) { r.Speed = 1.2 }},
		{"speed too slow", func(r *speechapi.SynthesisRequest) { r.Speed = 0.5 }},
		{"sample rate outside the set", func(r *speechapi.SynthesisRequest) { r.AudioConfig.SampleRate = 32000 }},
		{"sample rate outside the bounds", func(r *speechapi.SynthesisRequest) { r.AudioConfig.SampleRate = 96000 }},
		{"nine channels", func(r *speechapi.SynthesisRequest) { r.AudioConfig.NumChannels = 9 }},
		{"sample width 5", func(r *speechapi.SynthesisRequest) { r.AudioConfig.SampleWidth = 5 }},
		{"unknown encoding", func(r *speechapi.SynthesisRequest) { r.AudioConfig.Encoding = "pcm_f32le" }},
		{"unknown bitrate", func(r *speechapi.SynthesisRequest) { r.AudioConfig.Bitrate = "256k" }},
		{"tag-only text with v2.5", func(r *speechapi.SynthesisRequest) { r.Text = "<laugh><pauses>" }},
		{"text over the limit", func(r *speechapi.SynthesisRequest) { r.Text = strings.Repeat("क", 201) }},
		{"vc-v1 without embedding", func(r *speechapi.SynthesisRequest) { r.Model, r.Voice = "vc-v1", "" }},
		{"vc-v1 with a voice", func(r *speechapi.SynthesisRequest) {
			r.Model = "vc-v1"
			r.SpeakerEmbedding = &speechapi.Embedding{Embedding: "AAAA", Shape: []int{1, 768}, DType: "float32"}
		}},
	}
	ctx := context.Background()
	for _, c := range cases {
		for _, tr := range transports {
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				req := base()
				c.change(&req)
				var f memFile
				_, err := tr.call(e.client, ctx, &req, &f)
				noKey(t, err)
				var se *speechapi.Error
				if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || se.Type != speechapi.TypeInvalidRequest || se.Message == "" || se.Deviation != "" {
					t.Fatalf("want a 400 INVALID_REQUEST_ERROR with a message, in the documented body, got %v", err)
				}
				if len(f.Bytes()) != 0 {
					t.Fatalf("a rejected request wrote %d bytes", len(f.Bytes()))
				}
			})
		}
	}
	if s := e.stats(); s.BilledCharacters != 0 || s.Syntheses != 0 {
		t.Errorf("rejected requests were billed: %+v", s)
	}
}

// conformance: ERR-001, ERR-002, ERR-003, ERR-004
func TestSynthesisForbiddenWithoutAValidKey(t *testing.T) {
	for _, key := range []string{"", "vxk-OTHER-key-not-listed"} {
		e := newEmu(t, emulator.Options{}, speechapi.Config{APIKey: "placeholder"})
		c, err := speechapi.New(speechapi.Config{BaseURL: e.srv.URL, APIKey: key, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Namaste", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}}
		calls := map[string]func() error{
			"rest": func() error { _, err := c.Synthesize(context.Background(), req, &memFile{}); return err },
			"sse":  func() error { _, err := c.SynthesizeStream(context.Background(), req, &memFile{}); return err },
			"websocket": func() error {
				_, err := c.SynthesizeRealtime(context.Background(), req, &memFile{})
				return err
			},
			"embeddings": func() error {
				_, err := c.CreateEmbedding(context.Background(), "ref.wav", strings.NewReader("RIFF"))
				return err
			},
		}
		for name, call := range calls {
			err := call()
			var se *speechapi.Error
			if !errors.As(err, &se) || se.StatusCode != http.StatusForbidden || se.Type != speechapi.TypeForbidden || se.Deviation != "" {
				t.Errorf("key %q, %s: want 403 FORBIDDEN in the documented body, got %v", key, name, err)
			}
			if key != "" && strings.Contains(err.Error(), key) {
				t.Errorf("error leaks the key: %v", err)
			}
		}
		if s := e.stats(); s.BilledCharacters != 0 || s.EmbeddingsCreated != 0 || s.Requests["GET /api/v1/tts"] != 1 {
			t.Errorf("stats after forbidden calls: %+v", s)
		}
	}
}

// TestSynthesisErrorsNeverCarryTheKey drives every failure path it can
// reach (refused connection, service errors, cut streams, bad writers) and
// searches each error for the key.
func TestSynthesisErrorsNeverCarryTheKey(t *testing.T) {
	e := newEmu(t, emulator.Options{DropRate: 1, NoEspeak: true}, speechapi.Config{Retries: 1})
	dead, err := speechapi.New(speechapi.Config{BaseURL: "http://127.0.0.1:1", APIKey: testKey, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Namaste " + testKey, Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}}
	var errs []error
	for _, c := range []*speechapi.Client{e.client, dead} {
		for _, tr := range transports {
			_, err := tr.call(c, context.Background(), req, &memFile{})
			errs = append(errs, err)
		}
		_, err := c.CreateEmbedding(context.Background(), testKey+".wav", strings.NewReader("not audio"))
		errs = append(errs, err)
	}
	_, err = e.client.SynthesizeRealtime(context.Background(), req, writerOnly{})
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Errorf("call %d: want an error", i)
			continue
		}
		noKey(t, err)
	}
}

// writerOnly is a writer that cannot seek.
type writerOnly struct{}

func (writerOnly) Write(p []byte) (int, error) { return len(p), nil }
