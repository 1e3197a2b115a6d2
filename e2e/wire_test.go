package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// received collects what the emulator was asked, by route.
type received struct {
	mu   sync.Mutex
	reqs []receivedReq
}

type receivedReq struct {
	route string
	req   map[string]any
}

func (r *received) add(route string, req map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, receivedReq{route, req})
}

// plannedRequests reads the request of every planned change of plan -json.
func plannedRequests(t *testing.T, p *project) map[string]map[string]map[string]any {
	t.Helper()
	r := p.mustRun(append([]string{"plan", "-json"}, p.vars...)...)
	out := map[string]map[string]map[string]any{} // address -> kind -> request
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m struct {
			Type    string                    `json:"type"`
			Address string                    `json:"address"`
			Request map[string]map[string]any `json:"request"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("plan -json line %q: %v", line, err)
		}
		if m.Type == "planned_change" {
			out[m.Address] = m.Request
		}
	}
	return out
}

// wireForm is how a planned transcription request reaches the service
// (speech-recognition.md): the form fields of a REST call and of an older
// batch submit, the query of a realtime session, the config of a batch job.
func wireForm(w map[string]any) (route string, want map[string]any) {
	str := func(k string) string { s, _ := w[k].(string); return s }
	flag := func(k string) bool { b, _ := w[k].(bool); return b }
	switch str("api") {
	case "rest":
		return "POST /stt/v3", map[string]any{"language_code": str("language_code"), "format": str("format"),
			"itn_native_numerals": fmt.Sprint(flag("itn_native_numerals"))}
	case "batch_legacy":
		return "POST /stt/v3/batch/submit", map[string]any{"language_code": str("language_code"), "format": str("format"),
			"itn_native_numerals": fmt.Sprint(flag("itn_native_numerals")), "is_multi_channel": fmt.Sprint(flag("is_multi_channel"))}
	case "realtime":
		if profile == "live" {
			// The live protocol: handshake headers on /stt/v3/stream.
			return "GET /stt/v3/stream", map[string]any{"lang_code": str("language_code"), "x-sample-rate": fmt.Sprint(w["sample_rate"])}
		}
		return "GET /stt/v3", map[string]any{"language_code": str("language_code"), "sample_rate": fmt.Sprint(w["sample_rate"])}
	}
	cfg := map[string]any{"model": str("model"), "language_code": str("language_code"), "mode": str("mode"),
		"with_diarization": flag("with_diarization"), "is_multi_channel": flag("is_multi_channel")}
	if flag("with_diarization") {
		cfg["num_speakers"] = w["num_speakers"]
	}
	if d, ok := w["with_denoise"]; ok {
		cfg["with_denoise"] = d
	}
	return "POST /stt/v3/batch/jobs", map[string]any{"config": cfg, "callback_url": str("callback_url")}
}

// What apply sends is exactly what the plan shows: for every example, each
// synthesis the emulator received equals a planned synthesis request (a
// vc-v1 one plus its speaker embedding), each recognition call carries the
// planned request's fields, and every planned request was sent.
func TestPlannedRequestIsWhatIsSent(t *testing.T) {
	names := []string{"ivr-prompts", "hindi-narration", "cloned-voice", "call-transcripts", "short-clips", "url-batch"}
	if profile == "live" {
		names = append(names, "live-voices") // its voices are the live service's
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got received
			e := startEmulator(t, emulator.Options{Seed: 3, Received: got.add})
			p := newProject(t, name, e)
			if name == "url-batch" {
				srv := httptest.NewServer(http.FileServer(http.Dir(p.path("served"))))
				t.Cleanup(srv.Close)
				p.vars = []string{"-var", "recordings=" + srv.URL}
			}
			planned := plannedRequests(t, p)
			if r := p.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			var synth []map[string]any
			type want struct {
				route string
				req   map[string]any
			}
			var recog []want
			kinds := map[string]bool{}
			for addr, req := range planned {
				for kind, w := range req {
					kinds[kind] = true
					switch kind {
					case "synthesis":
						synth = append(synth, w)
					case "transcription":
						route, form := wireForm(w)
						recog = append(recog, want{route, form})
					case "embedding":
						if w["reference_audio"] == "" {
							t.Errorf("%s: embedding request without its recording", addr)
						}
					}
				}
			}
			sent := map[int]bool{}
			matched := map[string]bool{}
			for _, r := range got.reqs {
				switch {
				case strings.HasPrefix(r.route, "POST /api/v1/tts/inference"), strings.HasPrefix(r.route, "POST /api/v1/tts/sse"), r.route == "GET /api/v1/tts":
					body := r.req
					delete(body, "speaker_embedding")
					i := indexOf(synth, body)
					if i < 0 {
						t.Errorf("%s sent a synthesis request that was not planned: %v", r.route, body)
						continue
					}
					sent[i] = true
				case strings.HasPrefix(r.route, "POST /stt/v3") || strings.HasPrefix(r.route, "GET /stt/v3"):
					if r.route == "POST /stt/v3/batch/jobs" || r.route == "POST /stt/v3/batch/submit" || r.route == "POST /stt/v3" || r.route == "GET /stt/v3" || r.route == "GET /stt/v3/stream" {
						ok := false
						for _, w := range recog {
							if w.route == r.route && reflect.DeepEqual(normalize(w.req), normalize(r.req)) {
								ok, matched[fmt.Sprint(w)] = true, true
							}
						}
						if !ok {
							t.Errorf("%s sent %v, which no planned request gives", r.route, r.req)
						}
					}
				}
			}
			for i, w := range synth {
				if !sent[i] {
					t.Errorf("planned synthesis never sent: %v", w)
				}
			}
			for _, w := range recog {
				if !matched[fmt.Sprint(w)] {
					t.Errorf("planned %s request never sent: %v", w.route, w.req)
				}
			}
			if len(kinds) == 0 {
				t.Fatal("nothing planned")
			}
		})
	}
}

func indexOf(list []map[string]any, m map[string]any) int {
	for i, x := range list {
		if reflect.DeepEqual(normalize(x), normalize(m)) {
			return i
		}
	}
	return -1
}

// normalize makes JSON numbers comparable whatever decoded them.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}
