package speechapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// testKey is distinctive so that a leak into any error string is found.
const testKey = "vxk-SECRET-7f3a9c1e5b"

// emu is an emulator behind a real HTTP server and a client pointed at it.
type emu struct {
	t      testing.TB
	srv    *httptest.Server
	client *speechapi.Client
}

func newEmu(t testing.TB, opts emulator.Options, cfg speechapi.Config) *emu {
	t.Helper()
	if opts.Keys == nil {
		opts.Keys = []string{testKey}
	}
	s := emulator.New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	cfg.BaseURL = srv.URL
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	if cfg.RetryWaitMin == 0 {
		cfg.RetryWaitMin = time.Millisecond
		cfg.RetryWaitMax = 10 * time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second
	}
	c, err := speechapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &emu{t: t, srv: srv, client: c}
}

// stats is the emulator's statistics document.
type stats struct {
	Requests          map[string]int64 `json:"requests"`
	FaultsInjected    map[string]int64 `json:"faults_injected"`
	BilledCharacters  int64            `json:"billed_characters"`
	EmbeddingsCreated int64            `json:"embeddings_created"`
	Syntheses         int64            `json:"syntheses"`
}

func (e *emu) stats() stats {
	e.t.Helper()
	resp, err := http.Get(e.srv.URL + "/_emulator/stats")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var s stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// memFile is an in-memory io.WriteSeeker that can be truncated, like a file.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) Write(p []byte) (int, error) {
	end := m.off + int64(len(p))
	if end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.off:], p)
	m.off = end
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += m.off
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("negative seek")
	}
	m.off = off
	return off, nil
}

func (m *memFile) Truncate(n int64) error {
	if n < int64(len(m.b)) {
		m.b = m.b[:n]
	}
	return nil
}

func (m *memFile) Bytes() []byte { return m.b }

// probe is what ffprobe says about a file.
type probe struct {
	Codec      string
	SampleRate int
	Channels   int
	Duration   float64
}

// ffprobe runs ffprobe on data (written to a temp file) and fails the test
// when ffprobe is missing or rejects the file. What ffprobe reported of the
// same bytes, extension and options is taken from probes: ffprobe reads
// nothing else, and starting it costs some 0.3 s of CPU.
func ffprobe(t testing.TB, data []byte, ext string, rawFormat []string) probe {
	t.Helper()
	path, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Fatalf("ffprobe is required (scripts/deps.sh installs it): %v", err)
	}
	key := probeKey{sum: sha256.Sum256(data), ext: ext, raw: strings.Join(rawFormat, "\x00")}
	if p, ok := probes.Load(key); ok {
		return p.(probe)
	}
	f := filepath.Join(t.TempDir(), "audio."+ext)
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-v", "error"}, rawFormat...)
	args = append(args, "-show_entries", "stream=codec_name,sample_rate,channels:format=duration", "-of", "json", f)
	var stderr bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("ffprobe rejects the %s file (%d bytes): %v %s", ext, len(data), err, stderr.String())
	}
	var doc struct {
		Streams []struct {
			Codec      string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Streams) != 1 {
		t.Fatalf("ffprobe output %s: %v", out, err)
	}
	p := probe{Codec: doc.Streams[0].Codec, Channels: doc.Streams[0].Channels}
	p.SampleRate, _ = strconv.Atoi(doc.Streams[0].SampleRate)
	p.Duration, _ = strconv.ParseFloat(doc.Format.Duration, 64)
	probes.Store(key, p)
	return p
}

// probeKey is what ffprobe's report of a file depends on: its bytes, its
// extension (a hint to the format) and the input options.
type probeKey struct {
	sum      [32]byte
	ext, raw string
}

// probes holds ffprobe's reports that passed, by probeKey.
var probes sync.Map

// noKey fails the test when err's message holds the API key.
func noKey(t testing.TB, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Fatalf("error message leaks the API key: %v", err)
	}
}
