package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// loadWithin loads dir, failing the test if the load takes more than
// limit of processor time: the work a load does, which other processes
// on a loaded machine do not stretch as they stretch its wall time (on an
// idle one the two are about equal, the collector's work on the other
// processors counted too). The package's tests do not run in parallel,
// so the process's processor time while it loads is the load's. A load
// still running after hangFactor times limit of wall time fails the test
// at once (it is left running: a test that fails here must not wait for
// it).
func loadWithin(t *testing.T, limit time.Duration, dir string, opts manifest.LoadOptions) []string {
	t.Helper()
	type result struct{ ds manifest.Diagnostics }
	done := make(chan result, 1)
	start, cpu := time.Now(), processorTime(t)
	go func() {
		_, ds := manifest.Load(dir, opts, schema.Validator{})
		done <- result{ds}
	}()
	select {
	case r := <-done:
		used := processorTime(t) - cpu
		t.Logf("loaded in %v (%v of processor time)", time.Since(start).Round(time.Millisecond), used.Round(time.Millisecond))
		if used > limit {
			t.Fatalf("load took %v of processor time, over %v", used.Round(time.Millisecond), limit)
		}
		var out []string
		for _, d := range r.ds {
			out = append(out, d.String())
		}
		return out
	case <-time.After(hangFactor * limit):
		t.Fatalf("load still running after %v of wall time (%v of processor time)", hangFactor*limit, (processorTime(t) - cpu).Round(time.Millisecond))
		return nil
	}
}

// hangFactor times a load's bound of processor time is the wall time
// after which it is taken for hung, whatever the machine's load.
const hangFactor = 10

// processorTime is the processor time (user and system) the test process
// has used.
func processorTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
