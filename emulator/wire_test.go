package emulator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
)

// service is an emulator behind a real HTTP server, on a clock that only
// the test moves. Its tests speak the wire as any client would: they
// check what the emulator itself answers, not what a client makes of it.
type service struct {
	t   *testing.T
	srv *emulator.Server
	url string

	mu  sync.Mutex
	now time.Time
}

func newService(t *testing.T, opts emulator.Options) *service {
	t.Helper()
	s := &service{t: t, srv: emulator.New(opts), now: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)}
	s.srv.SetClock(func() time.Time {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.now
	})
	h := httptest.NewServer(s.srv)
	t.Cleanup(func() { h.Close(); s.srv.Close() })
	s.url = h.URL
	return s
}

// advance moves the emulator's clock forward.
func (s *service) advance(d time.Duration) {
	s.mu.Lock()
	s.now = s.now.Add(d)
	s.mu.Unlock()
}

// send makes a request with key (none when empty) and returns the status
// and the body.
func (s *service) send(method, path, key, ctype string, body io.Reader) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if key != "" {
		req.Header.Set("X-API-Key-ID", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// object decodes a JSON object body, numbers kept as json.Number.
func object(t *testing.T, body []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	return m
}

// formFile is one file part of a multipart request.
type formFile struct {
	field, name string
	data        []byte
}

// form builds a multipart body of fields and files; a field named config
// is sent as application/json, as batch jobs require.
func form(t *testing.T, fields map[string]string, files ...formFile) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		h := textproto.MIMEHeader{"Content-Disposition": {`form-data; name="` + k + `"`}}
		if k == "config" {
			h.Set("Content-Type", "application/json")
		}
		w, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.WriteString(w, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err == nil {
			_, err = w.Write(f.data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &b, mw.FormDataContentType()
}

// speech makes a 16-bit WAV of noise bursts with pauses, different on
// each channel: audio that is neither silent nor a tone.
func speech(t *testing.T, seed uint64, seconds float64, rate, channels int) []byte {
	t.Helper()
	frames := int(seconds * float64(rate))
	var b bytes.Buffer
	f := audio.Format{SampleRate: rate, Channels: channels, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&b, f, int64(frames*channels*2)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for i := range frames {
		x := float64(i) / float64(rate)
		for c := range channels {
			env := math.Max(0, math.Sin(2*math.Pi*x*(1.5+0.2*float64(c))))
			_ = binary.Write(&b, binary.LittleEndian, int16(12000*env*(rng.Float64()*2-1)))
		}
	}
	return b.Bytes()
}

// eventually polls cond until it holds, for at most ten seconds: for work
// the emulator does in the background (fetching sources, sending webhooks).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// webhooks is a callback address that keeps every payload it is sent.
type webhooks struct {
	url string
	mu  sync.Mutex
	got [][]byte
}

func newWebhooks(t *testing.T) *webhooks {
	t.Helper()
	w := &webhooks{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.got = append(w.got, b)
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.url = srv.URL + "/hook"
	return w
}

// next waits for the payload after the n first ones and returns it.
func (w *webhooks) next(t *testing.T, n int) map[string]any {
	t.Helper()
	var b []byte
	eventually(t, "webhook", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.got) > n {
			b = w.got[n]
		}
		return b != nil
	})
	return object(t, b)
}

// jsonBody is a JSON request body for send.
func jsonBody(s string) io.Reader { return strings.NewReader(s) }
