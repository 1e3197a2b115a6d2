package speechapi_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// transport is one of the three ways to synthesize.
type transport struct {
	name string
	call func(c *speechapi.Client, ctx context.Context, req *speechapi.SynthesisRequest, f *memFile) (*speechapi.SynthesisResult, error)
}

var transports = []transport{
	{"rest", func(c *speechapi.Client, ctx context.Context, r *speechapi.SynthesisRequest, f *memFile) (*speechapi.SynthesisResult, error) {
		return c.Synthesize(ctx, r, f)
	}},
	{"sse", func(c *speechapi.Client, ctx context.Context, r *speechapi.SynthesisRequest, f *memFile) (*speechapi.SynthesisResult, error) {
		return c.SynthesizeStream(ctx, r, f)
	}},
	{"websocket", func(c *speechapi.Client, ctx context.Context, r *speechapi.SynthesisRequest, f *memFile) (*speechapi.SynthesisResult, error) {
		return c.SynthesizeRealtime(ctx, r, f)
	}},
}

// websocketContainers are those voxform can write from raw PCM.
var websocketContainers = map[string]bool{"wav": true, "raw": true, "mulaw": true, "alaw": true}

// rawProbeArgs tells ffprobe how to read a headerless container.
func rawProbeArgs(cfg contract.Format) []string {
	rate, ch := strconv.Itoa(cfg.SampleRate), strconv.Itoa(cfg.NumChannels)
	switch cfg.Container {
	case "mulaw":
		return []string{"-f", "mulaw", "-ar", rate, "-ac", ch}
	case "alaw":
		return []string{"-f", "alaw", "-ar", rate, "-ac", ch}
	case "raw":
		f := map[int]string{1: "u8", 2: "s16le", 3: "s24le", 4: "s32le"}[cfg.SampleWidth]
		return []string{"-f", f, "-ar", rate, "-ac", ch}
	}
	return nil
}

// checkAudio asserts that data is valid audio of the resolved config and
// returns its duration in seconds.
func checkAudio(t *testing.T, data []byte, cfg contract.Format) float64 {
	t.Helper()
	p := ffprobe(t, data, cfg.Container, rawProbeArgs(cfg))
	wantRate := cfg.SampleRate
	if cfg.Container == "ogg" {
		wantRate = 48000 // Opus always decodes at 48 kHz
	}
	if p.SampleRate != wantRate || p.Channels != cfg.NumChannels {
		t.Fatalf("ffprobe: %d Hz %d channels, want %d Hz %d channels", p.SampleRate, p.Channels, wantRate, cfg.NumChannels)
	}
	frameSeconds := func(n int) float64 {
		fb := cfg.NumChannels * cfg.SampleWidth
		if n%fb != 0 {
			t.Fatalf("%d bytes is not a whole number of %d-byte frames", n, fb)
		}
		return float64(n/fb) / float64(cfg.SampleRate)
	}
	switch cfg.Container {
	case "wav":
		f, pcm, err := audio.ParseWAV(data)
		if err != nil {
			t.Fatal(err)
		}
		want := audio.Format{SampleRate: cfg.SampleRate, Channels: cfg.NumChannels, BitsPerSample: 8 * cfg.SampleWidth}
		if f != want {
			t.Fatalf("wav format %v, want %v", f, want)
		}
		return frameSeconds(len(pcm))
	case "raw", "mulaw", "alaw":
		return frameSeconds(len(data))
	}
	return p.Duration
}

// conformance: TTS-034, TTS-035, TTS-036, TTS-037, TTS-038, TTS-039, TTS-040, TTS-041, TTS-063, TTS-064, TTS-065, TTS-066, TTS-067, TTS-068, TTS-073, TTS-021, TTS-022, TTS-023, TTS-025, VC-005
func TestSynthesisEveryTransportAndContainer(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	configs := []speechapi.AudioConfig{
		{Container: "wav", SampleRate: 24000},
		{Container: "wav", SampleRate: 8000, NumChannels: 2, SampleWidth: 1},
		{Container: "wav", SampleRate: 22050, NumChannels: 3, SampleWidth: 3},
		{Container: "wav", SampleRate: 16000, SampleWidth: 4},
		{Container: "raw", SampleRate: 44100},
		{Container: "raw", SampleRate: 16000, NumChannels: 2, SampleWidth: 1},
		{Container: "mulaw", SampleRate: 48000},
		{Container: "alaw", NumChannels: 2},
		{Container: "mp3", SampleRate: 22050, Bitrate: "64k"},
		{Container: "mp3", SampleRate: 48000, NumChannels: 2},
		{Container: "ogg", SampleRate: 16000},
		{Container: "ogg", SampleRate: 44100, NumChannels: 2},
	}
	ctx := context.Background()
	text := "नमस्ते! आपका स्वागत है।"
	var ref memFile
	refReq := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 16000}}}
	if _, err := e.client.Synthesize(ctx, refReq, &ref); err != nil {
		t.Fatal(err)
	}
	refSeconds := float64(len(ref.Bytes())) / 2 / 16000
	for _, ac := range configs {
		cfg, _ := contract.Resolve(&ac)
		name := fmt.Sprintf("%s-%d-%dch-%db", cfg.Container, cfg.SampleRate, cfg.NumChannels, cfg.SampleWidth)
		t.Run(name, func(t *testing.T) {
			req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &ac}}
			outputs := map[string][]byte{}
			var durations []float64
			for _, tr := range transports {
				if tr.name == "websocket" && !websocketContainers[cfg.Container] {
					continue
				}
				var f memFile
				res, err := tr.call(e.client, ctx, req, &f)
				noKey(t, err)
				if err != nil {
					t.Fatalf("%s: %v", tr.name, err)
				}
				if res.Bytes != int64(len(f.Bytes())) || res.Container != cfg.Container {
					t.Fatalf("%s: result %+v for %d bytes", tr.name, res, len(f.Bytes()))
				}
				outputs[tr.name] = f.Bytes()
				durations = append(durations, checkAudio(t, f.Bytes(), cfg))
			}
			for name, b := range outputs {
				if !bytes.Equal(b, outputs["rest"]) {
					t.Errorf("%s output (%d bytes) differs from rest output (%d bytes)", name, len(b), len(outputs["rest"]))
				}
			}
			for _, d := range durations {
				// Equal across transports; within codec padding of the
				// same text's duration at another rate and container.
				if math.Abs(d-durations[0]) > 0.001 || math.Abs(d-refSeconds) > 0.1 {
					t.Errorf("durations %v: want equal, and %.3f s as at 16 kHz raw", durations, refSeconds)
				}
			}
		})
	}
}

// conformance: TTS-018, TTS-021, TTS-024, TTS-026, TTS-029
func TestSynthesisDefaultsWhenAudioConfigOmitted(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	var f memFile
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello and welcome.", Model: "tts-v2.5", Voice: "Nalini", Language: "en-IN"}}
	if _, err := e.client.Synthesize(context.Background(), req, &f); err != nil {
		t.Fatal(err)
	}
	got, _, err := audio.ParseWAV(f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := (audio.Format{SampleRate: 48000, Channels: 1, BitsPerSample: 16}); got != want {
		t.Fatalf("default format %v, want %v", got, want)
	}
}

// conformance: TTS-042, TTS-043, TTS-044, TTS-045, TTS-033
func TestSynthesisEncodingAliasesGiveIdenticalBytes(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	synth := func(ac speechapi.AudioConfig) []byte {
		t.Helper()
		var f memFile
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Press one for billing.", Model: "tts-v2.5", Voice: "Deepak", Language: "en-IN", AudioConfig: &ac}}
		if _, err := e.client.Synthesize(context.Background(), req, &f); err != nil {
			t.Fatal(err)
		}
		return f.Bytes()
	}
	cases := []struct {
		name        string
		alias, base speechapi.AudioConfig
	}{
		{"raw+pcm_mulaw", speechapi.AudioConfig{Container: "raw", Encoding: "pcm_mulaw"}, speechapi.AudioConfig{Container: "mulaw"}},
		{"raw+pcm_alaw", speechapi.AudioConfig{Container: "raw", Encoding: "pcm_alaw"}, speechapi.AudioConfig{Container: "alaw"}},
		{"raw+oggopus", speechapi.AudioConfig{Container: "raw", Encoding: "oggopus"}, speechapi.AudioConfig{Container: "ogg"}},
		{"ogg+oggopus", speechapi.AudioConfig{Container: "ogg", Encoding: "oggopus"}, speechapi.AudioConfig{Container: "ogg"}},
		{"wav bitrate ignored", speechapi.AudioConfig{Container: "wav", Bitrate: "32k"}, speechapi.AudioConfig{Container: "wav"}},
		{"mulaw rate forced", speechapi.AudioConfig{Container: "mulaw", SampleRate: 44100}, speechapi.AudioConfig{Container: "mulaw", SampleRate: 8000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := synth(c.alias), synth(c.base)
			if !bytes.Equal(a, b) {
				t.Fatalf("alias gives %d bytes, base %d bytes: not identical", len(a), len(b))
			}
		})
	}
}

// conformance: TTS-011, TTS-012, TTS-014, TTS-010
func TestSynthesisDurationFollowsTextAndSpeed(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	seconds := func(text string, speed float64) float64 {
		t.Helper()
		var f memFile
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Girish", Language: "en-IN", Speed: speed, AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 16000}}}
		if _, err := e.client.Synthesize(context.Background(), req, &f); err != nil {
			t.Fatal(err)
		}
		return float64(len(f.Bytes())) / 2 / 16000
	}
	short := seconds("Your order has shipped.", 0)
	long := seconds("Your order has shipped and will arrive on Tuesday between nine and eleven in the morning.", 0)
	if long < 2*short {
		t.Errorf("a text four times longer lasts %.2f s against %.2f s", long, short)
	}
	text := "Thank you for calling, please hold the line."
	slow, normal, fast := seconds(text, 0.85), seconds(text, 0), seconds(text, 1.15)
	if !(slow > normal*1.05 && normal > fast*1.05) {
		t.Errorf("durations slow %.2f, normal %.2f, fast %.2f: want slow > normal > fast", slow, normal, fast)
	}
}

// conformance: TTS-004, TTS-054, TTS-059
func TestSynthesisTagsRenderAlikeOnEveryTransport(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	synth := func(tr transport, text string) []byte {
		t.Helper()
		var f memFile
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v3.0", Voice: "Shivani", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 8000}}}
		if _, err := tr.call(e.client, context.Background(), req, &f); err != nil {
			t.Fatal(err)
		}
		return f.Bytes()
	}
	// Long enough that the tags fall in different chunks of the stream.
	text := "नमस्ते, आज हम एक कहानी सुनेंगे। <whispers> यह एक रहस्य है <pauses> <excited> और अब सब मिलकर गाएँगे! <laugh>"
	plain := synth(transports[0], "नमस्ते, आज हम एक कहानी सुनेंगे। यह एक रहस्य है और अब सब मिलकर गाएँगे!")
	rest := synth(transports[0], text)
	if bytes.Equal(rest, plain) || len(rest) < 8000*3 {
		t.Fatal("tts-v3.0 must render the tags")
	}
	for _, tr := range transports[1:] {
		if got := synth(tr, text); !bytes.Equal(got, rest) {
			t.Errorf("%s renders the tags differently from rest", tr.name)
		}
	}
}
