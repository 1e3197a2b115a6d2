package speechapi_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// peakHeap samples HeapInuse until stop is called and returns the peak.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// longText is about seconds of speech for the emulator's synthetic voice.
func longText(seconds float64) string {
	words := []string{"namaste", "duniya", "aaj", "ka", "mausam", "bahut", "accha", "hai"}
	var b strings.Builder
	for i := 0; float64(b.Len())*0.063 < seconds; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLongWAVMemoryIsFlat writes a long 48 kHz WAV over each transport to
// a file and samples the heap of the whole process (emulator and client)
// meanwhile: it must stay under 64 MiB. VOXFORM_MEM_SECONDS sets the length
// (default 30 s; 3600 measures the hour of SPEC target P5); the synthetic
// voice is used unless VOXFORM_MEM_ESPEAK=1.
func TestLongWAVMemoryIsFlat(t *testing.T) {
	seconds := 30.0
	if v := os.Getenv("VOXFORM_MEM_SECONDS"); v != "" {
		seconds, _ = strconv.ParseFloat(v, 64)
	}
	text := longText(seconds)
	espeak := os.Getenv("VOXFORM_MEM_ESPEAK") == "1"
	minSeconds := seconds * 0.9 // the synthetic voice's pace is known
	if espeak {
		minSeconds = seconds * 0.5
	}
	e := newEmu(t, emulator.Options{NoEspeak: !espeak, MaxText: len(text) + 1}, speechapi.Config{Timeout: 10 * time.Minute})
	req := &speechapi.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN",
		AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 48000}}
	for _, tr := range []string{"rest", "sse", "websocket"} {
		path := filepath.Join(t.TempDir(), tr+".wav")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		stop := peakHeap()
		begin := time.Now()
		switch tr {
		case "rest":
			_, err = e.client.Synthesize(context.Background(), req, f)
		case "sse":
			_, err = e.client.SynthesizeStream(context.Background(), req, f)
		case "websocket":
			_, err = e.client.SynthesizeRealtime(context.Background(), req, f)
		}
		peak := stop()
		elapsed := time.Since(begin)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		info, err := audio.Probe(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		t.Logf("%s: %.0f s of 48 kHz WAV (%d MiB) in %v, peak heap in use %.1f MiB",
			tr, info.Duration.Seconds(), st.Size()>>20, elapsed.Round(time.Millisecond), float64(peak)/(1<<20))
		if info.SampleRate != 48000 || info.Duration.Seconds() < minSeconds {
			t.Fatalf("%s: file is %v", tr, info)
		}
		if peak > 64<<20 {
			t.Errorf("%s: peak heap %d MiB, want under 64 MiB", tr, peak>>20)
		}
	}
}
