package speechapi_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/heaptest"
	"github.com/voxform/voxform/speechapi"
)

// peakHeap samples HeapInuse until stop is called and returns the peak.
func peakHeap() (stop func() uint64) { return heaptest.Sample(10 * time.Millisecond) }

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

// memDefaultSeconds is the default length of TestLongWAVMemoryIsFlat: four
// minutes of 48 kHz 16-bit mono is 22 MiB, several times maxHeapGrowth, so
// a client or emulator holding the whole file fails by a wide margin.
const memDefaultSeconds = 240

// maxHeapGrowth bounds how far the heap in use may rise above its level
// before a transfer, whatever the audio's length.
const maxHeapGrowth = 6 << 20

// TestLongWAVMemoryIsFlat writes a long 48 kHz WAV over each transport to
// a file and samples the heap of the whole process (emulator and client)
// meanwhile: its growth must stay under maxHeapGrowth. A control first
// checks that the sampler sees a buffered copy of such a file. The length
// is VOXFORM_MEM_SECONDS (default memDefaultSeconds; 3600 measures the hour
// of SPEC target P5); the synthetic voice is used unless
// VOXFORM_MEM_ESPEAK=1.
func TestLongWAVMemoryIsFlat(t *testing.T) {
	seconds := float64(memDefaultSeconds)
	if v := os.Getenv("VOXFORM_MEM_SECONDS"); v != "" {
		var err error
		if seconds, err = strconv.ParseFloat(v, 64); err != nil || seconds <= 0 {
			t.Fatalf("VOXFORM_MEM_SECONDS=%q is not a positive number", v)
		}
	}
	// A low GC target keeps garbage from passing for growth: what stays
	// above the base is what is held.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	text := longText(seconds)
	espeak := os.Getenv("VOXFORM_MEM_ESPEAK") == "1"
	minSeconds := seconds * 0.9 // the synthetic voice's pace is known
	if espeak {
		minSeconds = seconds * 0.5
	}
	e := newEmu(t, emulator.Options{NoEspeak: !espeak, MaxText: len(text) + 1}, speechapi.Config{Timeout: 10 * time.Minute})
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 48000}}}
	var lastPath string
	for _, tr := range []string{"rest", "sse", "websocket"} {
		path := filepath.Join(t.TempDir(), tr+".wav")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		base, stop := heapGrowth()
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
		t.Logf("%s: %.0f s of 48 kHz WAV (%.1f MiB) in %v, heap in use %.1f MiB before, peak %.1f MiB (growth %.1f MiB)",
			tr, info.Duration.Seconds(), float64(st.Size())/(1<<20), elapsed.Round(time.Millisecond),
			mib(base), mib(peak), mib(peak-min(peak, base)))
		if info.SampleRate != 48000 || info.Duration.Seconds() < minSeconds {
			t.Fatalf("%s: file is %v", tr, info)
		}
		if st.Size() < 3*maxHeapGrowth && seconds >= memDefaultSeconds {
			t.Fatalf("%s: %d bytes is too small to tell streaming from buffering", tr, st.Size())
		}
		if growth := peak - min(peak, base); growth > maxHeapGrowth {
			t.Errorf("%s: heap grew by %.1f MiB while writing %.1f MiB, want under %.1f MiB",
				tr, mib(growth), float64(st.Size())/(1<<20), mib(maxHeapGrowth))
		}
		lastPath = path
	}
	// Control: the sampler must see a whole file held in memory.
	base, stop := heapGrowth()
	held, err := os.ReadFile(lastPath)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the sampler (every 10 ms) see it held
	peak := stop()
	runtime.KeepAlive(held)
	if growth := peak - min(peak, base); growth <= maxHeapGrowth && seconds >= memDefaultSeconds {
		t.Errorf("control: buffering %d bytes grew the heap by only %.1f MiB: the bound could not catch a buffering client",
			len(held), mib(growth))
	}
}

// heapGrowth collects garbage, reads the heap in use as the base, and starts
// sampling its peak.
func heapGrowth() (base uint64, stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, peakHeap()
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
