package speechapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// recogEmu is an emulator over real HTTP with a clock tests can move.
type recogEmu struct {
	srv    *emulator.Server
	http   *httptest.Server
	client *speechapi.Client

	mu     sync.Mutex
	offset time.Duration
}

func newRecogEmu(t *testing.T, opts emulator.Options) *recogEmu {
	t.Helper()
	if opts.TimeScale == 0 {
		opts.TimeScale = 2000
	}
	e := &recogEmu{srv: emulator.New(opts)}
	e.srv.SetClock(func() time.Time {
		e.mu.Lock()
		defer e.mu.Unlock()
		return time.Now().Add(e.offset)
	})
	e.http = httptest.NewServer(e.srv)
	t.Cleanup(func() {
		e.http.Close()
		e.srv.Close()
	})
	e.client = newRecogClient(t, e.http.URL, "test-key")
	return e
}

func newRecogClient(t *testing.T, url, key string) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: url, APIKey: key, Retries: 2,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// advance moves the emulator's clock forward.
func (e *recogEmu) advance(d time.Duration) {
	e.mu.Lock()
	e.offset += d
	e.mu.Unlock()
}

// recogStats is the subset of GET /_emulator/stats the tests read.
type recogStats struct {
	Requests                     map[string]int64            `json:"requests"`
	FaultsInjected               map[string]int64            `json:"faults_injected"`
	FaultsByRoute                map[string]map[string]int64 `json:"faults_by_route"`
	BilledAudioSeconds           float64                     `json:"billed_audio_seconds"`
	BatchJobsCreated             int64                       `json:"batch_jobs_created"`
	BatchJobsStarted             int64                       `json:"batch_jobs_started"`
	BatchJobsCancelled           int64                       `json:"batch_jobs_cancelled"`
	LegacyJobsSubmitted          int64                       `json:"legacy_jobs_submitted"`
	FilesTranscribed             int64                       `json:"files_transcribed"`
	PresignedDownloads           int64                       `json:"presigned_downloads"`
	PresignedDownloadsWithAPIKey int64                       `json:"presigned_downloads_with_api_key"`
	WebhooksSent                 int64                       `json:"webhooks_sent"`
}

func (e *recogEmu) stats(t *testing.T) recogStats {
	t.Helper()
	var s recogStats
	if err := json.Unmarshal(e.srv.StatsJSON(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fastPoll polls a loopback emulator every few milliseconds.
var fastPoll = speechapi.PollOptions{Interval: 3 * time.Millisecond}

// kind of test audio.
const (
	kindSpeech = iota // bursts of noise with pauses: not silent, not a tone
	kindSilent
	kindTone
)

// wavBytes makes a deterministic 16-bit mono WAV of the given kind.
func wavBytes(t *testing.T, seed uint64, seconds float64, rate, kind int) []byte {
	t.Helper()
	n := int(seconds * float64(rate))
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var buf bytes.Buffer
	f := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&buf, f, int64(n*2)); err != nil {
		t.Fatal(err)
	}
	samples := make([]float64, n)
	for i := range samples {
		x := float64(i) / float64(rate)
		switch kind {
		case kindSpeech:
			env := math.Max(0, math.Sin(2*math.Pi*x*(1.5+float64(seed%5)*0.2)))
			samples[i] = 0.4 * env * (rng.Float64()*2 - 1)
		case kindTone:
			samples[i] = 0.5 * math.Sin(2*math.Pi*440*x)
		}
	}
	w, err := audio.NewSampleWriter(&buf, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSamples(samples); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes data under dir and returns a file Source.
func writeAudioFile(t *testing.T, dir, name string, data []byte) speechapi.Source {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := speechapi.FileSource(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func recogPtr[T any](v T) *T { return &v }

func serviceError(t *testing.T, err error) *speechapi.Error {
	t.Helper()
	se, ok := asServiceError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *speechapi.Error", err, err)
	}
	return se
}

// stereoWAV makes a two-channel 16 kHz WAV with different content per
// channel.
func stereoWAV(t *testing.T, seconds float64) []byte {
	t.Helper()
	left := wavBytes(t, 31, seconds, 16000, kindSpeech)[44:]
	right := wavBytes(t, 32, seconds, 16000, kindSpeech)[44:]
	var buf bytes.Buffer
	f := audio.Format{SampleRate: 16000, Channels: 2, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&buf, f, int64(len(left)*2)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(left); i += 2 {
		buf.Write(left[i : i+2])
		buf.Write(right[i : i+2])
	}
	return buf.Bytes()
}

// longWAV makes a WAV whose header declares seconds of 8 kHz 16-bit audio
// while holding only one second of it, as a truncated recording would.
func longWAV(t *testing.T, seconds int) []byte {
	t.Helper()
	var buf bytes.Buffer
	f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&buf, f, int64(seconds)*16000); err != nil {
		t.Fatal(err)
	}
	buf.Write(wavBytes(t, 41, 1, 8000, kindSpeech)[44:])
	return buf.Bytes()
}

// rawMultipart posts fields and count copies of a file to url with a key,
// as a client other than speechapi would, and returns the status and body.
func rawMultipart(t *testing.T, url string, fields map[string]string, fileField string, count int, data []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		h := textproto.MIMEHeader{"Content-Disposition": {`form-data; name="` + k + `"`}}
		if k == "config" {
			h.Set("Content-Type", "application/json")
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, v)
	}
	for i := range count {
		w, err := mw.CreateFormFile(fileField, fmt.Sprintf("f%d.wav", i))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, url, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key-ID", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rawLarge posts a multipart body with language_code and one file of n
// zero bytes, streamed with a Content-Length, and returns the answer.
func rawLarge(t *testing.T, url, fileField string, n int64) (int, string) {
	t.Helper()
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	_ = mw.WriteField("language_code", "hi-IN")
	if _, err := mw.CreateFormFile(fileField, "big.wav"); err != nil {
		t.Fatal(err)
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	body := io.MultiReader(&head, io.LimitReader(zeroReader{}, n), strings.NewReader(tail))
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(head.Len()) + n + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key-ID", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
