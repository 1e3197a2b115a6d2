package synth

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator/internal/emu"
)

func mustJob(t *testing.T, body string) *job {
	t.Helper()
	j, err := parseJob([]byte(body), 100000)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// render reads all samples of j at rate from r.
func render(t *testing.T, r *renderer, j *job, rate int) []int16 {
	t.Helper()
	src, err := r.open(context.Background(), j, rate)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	total := src.Total()
	var out []int16
	buf := make([]int16, 4096)
	for {
		n, err := src.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if int64(len(out)) != total {
		t.Fatalf("source announced %d samples and gave %d", total, len(out))
	}
	return out
}

func engines(t *testing.T) map[string]emu.Options {
	t.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Fatalf("espeak-ng is required (scripts/deps.sh installs it): %v", err)
	}
	return map[string]emu.Options{"espeak": {}, "synthetic": {NoEspeak: true}}
}

func TestRenderingIsDeterministicAndFollowsTheText(t *testing.T) {
	for name, opts := range engines(t) {
		t.Run(name, func(t *testing.T) {
			a := mustJob(t, `{"text": "नमस्ते, आपका स्वागत है", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`)
			b := mustJob(t, `{"text": "धन्यवाद, फिर मिलेंगे", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`)
			first := render(t, newRenderer(emu.NewEnv(opts)), a, 16000)
			second := render(t, newRenderer(emu.NewEnv(opts)), a, 16000)
			if !slices.Equal(first, second) {
				t.Fatal("the same request rendered twice differs")
			}
			if other := render(t, newRenderer(emu.NewEnv(opts)), b, 16000); slices.Equal(first, other) {
				t.Fatal("two texts render the same")
			}
			if s := float64(len(first)) / 16000; s < 0.5 || s > 4 {
				t.Fatalf("%.2f s for a short sentence", s)
			}
		})
	}
}

func TestRenderingRegistersWhatWasSaid(t *testing.T) {
	for name, opts := range engines(t) {
		t.Run(name, func(t *testing.T) {
			env := emu.NewEnv(opts)
			r := newRenderer(env)
			j := mustJob(t, `{"text": "<whispers> Your code is ready <pauses> thank you", "model": "tts-v3.0", "voice": "Shivani", "language": "en-IN"}`)
			samples := render(t, r, j, 8000)
			// Decode the mu-law the client would receive and look it up.
			e := emu.NewEnvelope(8000)
			for _, s := range samples {
				e.Add(float64(audio.MuLawDecode(audio.MuLawEncode(s))) / 32768)
			}
			got, ok := env.Registry.Lookup(e.Values())
			if !ok || got.Text != "Your code is ready thank you" || got.Language != "en-IN" {
				t.Fatalf("registry lookup: %+v, %v", got, ok)
			}
		})
	}
}

func TestRenderingCache(t *testing.T) {
	r := newRenderer(emu.NewEnv(emu.Options{}))
	j := mustJob(t, `{"text": "Press one for billing", "model": "tts-v2.5", "voice": "Deepak", "language": "en-IN"}`)
	a := render(t, r, j, 24000)
	b := render(t, r, j, 24000)
	if r.renders.Load() != 1 || !slices.Equal(a, b) {
		t.Fatalf("two identical requests rendered %d times", r.renders.Load())
	}
	render(t, r, j, 8000)
	if r.renders.Load() != 2 {
		t.Fatal("another rate must render again")
	}
}

func TestConcurrentIdenticalRequestsRenderOnce(t *testing.T) {
	r := newRenderer(emu.NewEnv(emu.Options{}))
	j := mustJob(t, `{"text": "All lines are busy, please wait", "model": "tts-v2.5", "voice": "Deepak", "language": "en-IN"}`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := r.open(context.Background(), j, 16000)
			if err != nil {
				t.Error(err)
				return
			}
			src.Close()
		}()
	}
	wg.Wait()
	if n := r.renders.Load(); n != 1 {
		t.Fatalf("8 concurrent identical requests rendered %d times", n)
	}
}

// TestLongRenderingStreams checks the path for audio too long to cache:
// espeak-ng runs twice (a counting pass), and the announced total is exact.
func TestLongRenderingStreams(t *testing.T) {
	for name, opts := range engines(t) {
		t.Run(name, func(t *testing.T) {
			r := newRenderer(emu.NewEnv(opts))
			r.maxEntry = 8000 // a second at 8 kHz counts as long here
			j := mustJob(t, `{"text": "This sentence is long enough to be streamed.", "model": "tts-v2.5", "voice": "Deepak", "language": "en-IN"}`)
			samples := render(t, r, j, 8000)
			if len(samples) < 2*8000 {
				t.Fatalf("%d samples for a long text", len(samples))
			}
			if r.lru.Len() != 0 || r.renders.Load() != 1 {
				t.Fatal("a long rendering must not be cached")
			}
			whole := render(t, newRenderer(emu.NewEnv(opts)), j, 8000)
			if !slices.Equal(samples, whole) {
				t.Fatal("streamed and whole renderings differ")
			}
		})
	}
}

// conformance: TTS-053, TTS-055, TTS-056, TTS-057, TTS-004, TTS-054
func TestTagsInRendering(t *testing.T) {
	r := newRenderer(emu.NewEnv(emu.Options{NoEspeak: true}))
	req := func(model, text string) *job {
		voice := "Shivani"
		if model == "tts-v2.5" {
			voice = "Kaveri"
		}
		return mustJob(t, `{"text": "`+text+`", "model": "`+model+`", "voice": "`+voice+`", "language": "en-IN"}`)
	}
	same := func(a, b *job) bool { return slices.Equal(render(t, r, a, 8000), render(t, r, b, 8000)) }
	if !same(req("tts-v2.5", "Hello <laugh>world"), req("tts-v2.5", "Hello world")) {
		t.Error("tts-v2.5 must remove tags before synthesis")
	}
	if !same(req("tts-v3.0", "Hello <chuckle>world"), req("tts-v3.0", "Hello world")) {
		t.Error("an unknown tag must be stripped silently")
	}
	if same(req("tts-v3.0", "Hello <whispers>world"), req("tts-v3.0", "Hello world")) {
		t.Error("tts-v3.0 must render <whispers>")
	}
	plain := render(t, r, req("tts-v3.0", "Hello world"), 8000)
	paused := render(t, r, req("tts-v3.0", "Hello <pauses>world"), 8000)
	extra := len(paused) - len(plain)
	if extra < int(0.9*pauseSeconds*8000) || extra > int(1.1*pauseSeconds*8000) {
		t.Fatalf("<pauses> added %d samples, want about %v s", extra, pauseSeconds)
	}
	silent := 0
	for _, s := range paused[len(render(t, r, req("tts-v3.0", "Hello "), 8000)):][:extra] {
		if s == 0 {
			silent++
		}
	}
	if silent != extra {
		t.Fatalf("<pauses> is %d of %d samples silent", silent, extra)
	}
	// Rule 1: a delivery tag changes what follows, not what precedes.
	before := render(t, r, req("tts-v3.0", "Hello"), 8000)
	styled := render(t, r, req("tts-v3.0", "Hello <shouting>world"), 8000)
	if !slices.Equal(styled[:len(before)-100], before[:len(before)-100]) {
		t.Error("text before the first tag must be neutral")
	}
}

// conformance: TTS-016
func TestEspeakVoice(t *testing.T) {
	cases := map[[2]string]string{
		{"hi-IN", "x"}: "hi", {"en-IN", "x"}: "en-gb", {"ta-IN", ""}: "ta", {"te-IN", ""}: "te", {"kn-IN", ""}: "kn",
		{"ml-IN", ""}: "ml", {"mr-IN", ""}: "mr", {"pa-IN", ""}: "pa", {"bn-IN", ""}: "bn", {"gu-IN", ""}: "gu",
		{"hi-en", "hello"}: "hi", {"auto", "வணக்கம் friends"}: "ta", {"auto", "hello"}: "en-gb", {"IND-IN", "नमस्ते"}: "hi",
		{"", "ನಮಸ್ಕಾರ"}: "kn",
	}
	for in, want := range cases {
		if got := espeakVoice(in[0], in[1]); got != want {
			t.Errorf("espeakVoice(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}
