package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeWAV writes a 16-bit mono WAV of the given rate and duration. The
// samples are a sparse hole of zeros, so hours of audio cost nothing.
func writeWAV(t testing.TB, path string, rate int, d time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	data := int64(d.Seconds()*float64(rate)) * 2
	if err := audio.WriteWAVHeader(f, format, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(audio.WAVHeaderSize(format)) + data); err != nil {
		t.Fatal(err)
	}
}

// loadWithin loads dir, failing the test if the load takes longer than
// limit (the load is left running: a test that fails here must not wait
// for it).
func loadWithin(t *testing.T, limit time.Duration, dir string, opts manifest.LoadOptions) []string {
	t.Helper()
	type result struct{ ds manifest.Diagnostics }
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		_, ds := manifest.Load(dir, opts, schema.Validator{})
		done <- result{ds}
	}()
	select {
	case r := <-done:
		t.Logf("loaded in %v", time.Since(start).Round(time.Millisecond))
		var out []string
		for _, d := range r.ds {
			out = append(out, d.String())
		}
		return out
	case <-time.After(limit):
		t.Fatalf("load still running after %v", limit)
		return nil
	}
}

// errorsOf keeps the errors of rendered diagnostics.
func errorsOf(ds []string) []string {
	var out []string
	for _, d := range ds {
		if _, rest, _ := strings.Cut(d, ": "); strings.Contains(d, ": error: ") || strings.HasPrefix(rest, "error: ") {
			out = append(out, d)
		}
	}
	return out
}
