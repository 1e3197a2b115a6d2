package speechapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// referenceWAV is a few seconds of a tone whose pitch depends on seed.
func referenceWAV(seed int, seconds float64) []byte {
	f := audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16}
	n := int(seconds * 16000)
	var b bytes.Buffer
	_ = audio.WriteWAVHeader(&b, f, int64(2*n))
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*float64(200+seed*10)*float64(i)/16000))
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// conformance: VC-007, VC-008, VC-009, VC-011, VC-012, VC-014
func TestCreateEmbedding(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	ctx := context.Background()
	var mp3 memFile
	mp3Req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "This is my reference voice.", Model: "tts-v2.5", Voice: "Girish", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "mp3"}}}
	if _, err := e.client.Synthesize(ctx, mp3Req, &mp3); err != nil {
		t.Fatal(err)
	}
	first, err := e.client.CreateEmbedding(ctx, "refs/founder.wav", bytes.NewReader(referenceWAV(1, 6)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(first.Embedding)
	if err != nil || len(raw) != 4*768 || first.DType != "float32" || fmt.Sprint(first.Shape) != "[1 768]" {
		t.Fatalf("embedding %d bytes (%v), shape %v, dtype %q", len(raw), err, first.Shape, first.DType)
	}
	again, err := e.client.CreateEmbedding(ctx, "again.wav", bytes.NewReader(referenceWAV(1, 6)))
	if err != nil || again.Embedding != first.Embedding {
		t.Fatalf("the same recording must give the same embedding: %v", err)
	}
	other, err := e.client.CreateEmbedding(ctx, "other.wav", bytes.NewReader(referenceWAV(2, 6)))
	if err != nil || other.Embedding == first.Embedding {
		t.Fatalf("another recording must give another embedding: %v", err)
	}
	fromMP3, err := e.client.CreateEmbedding(ctx, "ref.mp3", bytes.NewReader(mp3.Bytes()))
	if err != nil || fromMP3.Embedding == first.Embedding {
		t.Fatalf("mp3 reference: %v", err)
	}
	for name, body := range map[string][]byte{"text": []byte("hello, not audio"), "empty": nil, "flac": []byte("fLaC\x00\x00\x00\x22 more bytes")} {
		_, err := e.client.CreateEmbedding(ctx, "ref."+name, bytes.NewReader(body))
		var se *speechapi.Error
		if !errors.As(err, &se) || se.StatusCode != 400 || se.Type != speechapi.TypeInvalidRequest {
			t.Errorf("%s reference: want 400 INVALID_REQUEST_ERROR, got %v", name, err)
		}
	}
	if s := e.stats(); s.EmbeddingsCreated != 4 {
		t.Errorf("embeddings_created %d, want 4", s.EmbeddingsCreated)
	}
}

func TestCreateEmbeddingStreamsAndRetries(t *testing.T) {
	e := newEmu(t, emulator.Options{FailRate: 0.5, Seed: 11}, speechapi.Config{Retries: 20})
	// A seekable reader is rewound for each attempt.
	for i := 0; i < 5; i++ {
		if _, err := e.client.CreateEmbedding(context.Background(), "ref.wav", bytes.NewReader(referenceWAV(3, 8))); err != nil {
			t.Fatal(err)
		}
	}
	if s := e.stats(); s.FaultsInjected["500"]+s.FaultsInjected["503"] == 0 || s.EmbeddingsCreated != 5 {
		t.Fatalf("stats %+v", s)
	}
	// A reader that cannot seek is streamed once, through a pipe.
	clean := newEmu(t, emulator.Options{}, speechapi.Config{})
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(referenceWAV(3, 8))
		pw.Close()
	}()
	emb, err := clean.client.CreateEmbedding(context.Background(), "ref.wav", onlyReader{pr})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := clean.client.CreateEmbedding(context.Background(), "ref.wav", bytes.NewReader(referenceWAV(3, 8)))
	if emb.Embedding != want.Embedding {
		t.Fatal("streamed upload gives another embedding than the same bytes from memory")
	}
}

type onlyReader struct{ io.Reader }

// conformance: VC-001, VC-002, VC-003, VC-004, VC-005, VC-010
func TestClonedVoiceOverEveryTransport(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	ctx := context.Background()
	var outputs [][]byte
	for seed := 1; seed <= 2; seed++ {
		emb, err := e.client.CreateEmbedding(ctx, "ref.wav", bytes.NewReader(referenceWAV(seed, 6)))
		if err != nil {
			t.Fatal(err)
		}
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello from my cloned voice.", Model: "vc-v1", AudioConfig: &speechapi.AudioConfig{SampleRate: 24000, Encoding: "linear_pcm", Container: "wav"}}, SpeakerEmbedding: emb}
		var rest []byte
		for _, tr := range transports {
			var f memFile
			if _, err := tr.call(e.client, ctx, req, &f); err != nil {
				t.Fatalf("%s: %v", tr.name, err)
			}
			if rest == nil {
				rest = f.Bytes()
			} else if !bytes.Equal(rest, f.Bytes()) {
				t.Fatalf("%s output differs from rest", tr.name)
			}
		}
		outputs = append(outputs, rest)
	}
	if bytes.Equal(outputs[0], outputs[1]) {
		t.Fatal("two cloned voices sound the same")
	}
}

// conformance: VC-010
func TestEmbeddingIsPassedUnchanged(t *testing.T) {
	var sent map[string]json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			fmt.Fprint(w, `{"embedding": "QUJD", "shape": [1, 768], "dtype": "bfloat16", "speaker_id": "spk_42", "meta": {"v": 2}}`)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&sent)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"success": false, "error": {"type": "INVALID_REQUEST_ERROR", "message": "stop here"}}`)
	}))
	defer srv.Close()
	c, _ := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Retries: -1})
	emb, err := c.CreateEmbedding(context.Background(), "ref.wav", strings.NewReader("RIFF"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Synthesize(context.Background(), &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hi", Model: "vc-v1"}, SpeakerEmbedding: emb}, &memFile{})
	var got map[string]any
	_ = json.Unmarshal(sent["speaker_embedding"], &got)
	want := map[string]any{"embedding": "QUJD", "shape": []any{1.0, 768.0}, "dtype": "bfloat16", "speaker_id": "spk_42", "meta": map[string]any{"v": 2.0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("speaker_embedding sent %v, want %v", got, want)
	}
	if _, hasVoice := sent["voice"]; hasVoice {
		t.Fatal("voice must not be sent for vc-v1")
	}
}
