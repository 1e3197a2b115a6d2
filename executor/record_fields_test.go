package executor_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/state"
)

const perAPIManifest = `
version: 1
service: { base_url: https://speech.example.com }
transcriptions:
  rest:
    inputs: ["rec/a.wav"]
    api: rest
    language_code: hi-IN
    output_dir: out/rest
    formats: [json, txt]
  live:
    inputs: ["rec/a.wav"]
    api: realtime
    language_code: hi-IN
    output_dir: out/live
    formats: [json]
  jobs:
    inputs: ["rec/a.wav"]
    api: batch
    model: stt-v2.5
    language_code: hi-IN
    output_dir: out/jobs
    formats: [json]
  older:
    inputs: ["rec/a.wav"]
    api: batch_legacy
    language_code: hi-IN
    output_dir: out/older
    formats: [json]
`

// bodies keeps the last body the service sent for each path (a path
// ending in / stands for every path under it).
type bodies struct {
	mu   sync.Mutex
	last map[string][]byte
}

func (b *bodies) hook(prefixes ...string) func(*http.Request, http.RoundTripper) (*http.Response, error) {
	return func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			return resp, err
		}
		for _, p := range prefixes {
			if req.URL.Path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(req.URL.Path, p) {
				data, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				if rerr != nil {
					return nil, rerr
				}
				b.mu.Lock()
				b.last[p] = data
				b.mu.Unlock()
				resp.Body = io.NopCloser(bytes.NewReader(data))
			}
		}
		return resp, nil
	}
}

// Each recognition API records the source hash, the remote identifiers it
// has, the model, the language the service detected (never the requested
// one presented as detected) and the duration; the json output is what the
// service returned, byte for byte, where the service returns a document.
func TestTranscriptionRecordsPerAPI(t *testing.T) {
	wav := recording(t, "1")
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": perAPIManifest, "rec/a.wav": wav})
	b := &bodies{last: map[string][]byte{}}
	h.hook = b.hook("/stt/v3/batch/status/", "/stt/v3")
	if s := h.apply(); s.Done != 4 || s.Failed != 0 {
		t.Fatalf("summary %+v %v", s, s.Failures)
	}
	sum := sha256.Sum256([]byte(wav))
	st := h.state()
	get := func(block string) *state.Resource {
		r := st.Resources[`transcription.`+block+`["rec/a.wav"]`]
		if r == nil {
			t.Fatalf("%s not recorded", block)
		}
		if r.Details().Source == nil || r.Details().Source.SHA256 != hex.EncodeToString(sum[:]) || r.Details().Source.Path != "rec/a.wav" {
			t.Errorf("%s source %+v", block, r.Details().Source)
		}
		if math.Abs(r.Details().DurationSeconds-1) > 0.1 {
			t.Errorf("%s duration %v, want about 1 s", block, r.Details().DurationSeconds)
		}
		return r
	}
	read := func(p string) []byte {
		data, err := os.ReadFile(filepath.Join(h.dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	rest := get("rest")
	if len(rest.Details().RequestIDs) != 1 || rest.Details().RequestIDs[0] == "" || rest.Details().JobID != "" {
		t.Errorf("rest identifiers: %+v %q", rest.Details().RequestIDs, rest.Details().JobID)
	}
	if rest.Details().DetectedLanguage != "" {
		t.Errorf("rest detected language %q: the REST response names none", rest.Details().DetectedLanguage)
	}
	if got, want := read("out/rest/a.json"), b.last["/stt/v3"]; !bytes.Equal(got, want) || len(want) == 0 {
		t.Errorf("rest json output is not the response as returned:\n got %s\nwant %s", got, want)
	}

	live := get("live")
	var doc struct {
		Messages []struct {
			DetectedLanguage string `json:"detected_language"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(read("out/live/a.json"), &doc); err != nil {
		t.Fatal(err)
	}
	said := ""
	for _, m := range doc.Messages {
		if m.DetectedLanguage != "" {
			said = m.DetectedLanguage
			break
		}
	}
	if live.Details().DetectedLanguage != said {
		t.Errorf("realtime detected language %q, the messages said %q", live.Details().DetectedLanguage, said)
	}

	jobs := get("jobs")
	if jobs.Details().JobID == "" || jobs.Details().FileID == "" || jobs.Details().JobAPI != "batch" || jobs.Details().Model != "stt-v2.5" {
		t.Errorf("batch identifiers: job %q file %q api %q model %q", jobs.Details().JobID, jobs.Details().FileID, jobs.Details().JobAPI, jobs.Details().Model)
	}
	var tj struct {
		LanguageCode string `json:"language_code"`
		FileID       string `json:"file_id"`
	}
	if err := json.Unmarshal(read("out/jobs/a.json"), &tj); err != nil {
		t.Fatal(err)
	}
	if jobs.Details().DetectedLanguage != tj.LanguageCode || tj.LanguageCode == "" || tj.FileID != jobs.Details().FileID {
		t.Errorf("batch detected language %q file %q; the transcript says %q, %q", jobs.Details().DetectedLanguage, jobs.Details().FileID, tj.LanguageCode, tj.FileID)
	}

	older := get("older")
	if older.Details().JobID == "" || older.Details().JobAPI != "batch_legacy" || len(older.Details().RequestIDs) != 1 {
		t.Errorf("older batch identifiers: job %q api %q request ids %v", older.Details().JobID, older.Details().JobAPI, older.Details().RequestIDs)
	}
	var status struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b.last["/stt/v3/batch/status/"], &status); err != nil || len(status.Results) != 1 {
		t.Fatalf("older batch status: %v %s", err, b.last["/stt/v3/batch/status/"])
	}
	if got := read("out/older/a.json"); !bytes.Equal(got, status.Results[0]) {
		t.Errorf("older batch json output is not the result entry as returned:\n got %s\nwant %s", got, status.Results[0])
	}
	var entry struct {
		Segments []struct {
			LanguageDetected string `json:"language_detected"`
		} `json:"segments"`
	}
	json.Unmarshal(status.Results[0], &entry)
	if len(entry.Segments) == 0 || older.Details().DetectedLanguage != entry.Segments[0].LanguageDetected {
		t.Errorf("older batch detected language %q, segments %+v", older.Details().DetectedLanguage, entry.Segments)
	}
}

// An embedding output is the service's response body byte for byte, and
// the state records the consent note with it.
//
// conformance: VC-010
func TestEmbeddingWrittenAsReturned(t *testing.T) {
	ref := recording(t, "6")
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": `
version: 1
service: { base_url: https://speech.example.com }
embeddings:
  founder:
    reference_audio: refs/founder.wav
    output: build/founder.json
    consent: "release form 2026-10-01"
`, "refs/founder.wav": ref})
	b := &bodies{last: map[string][]byte{}}
	h.hook = b.hook("/api/v1/tts/voice-clone/embeddings")
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("summary %+v %v", s, s.Failures)
	}
	got, err := os.ReadFile(filepath.Join(h.dir, "build/founder.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := b.last["/api/v1/tts/voice-clone/embeddings"]; len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("embedding output is not the response as returned:\n got %.80s\nwant %.80s", got, want)
	}
	if r := h.state().Resources["embedding.founder"]; r == nil || r.Details().Consent != "release form 2026-10-01" {
		t.Errorf("embedding record %+v", r)
	}
}
