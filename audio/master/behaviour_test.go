package master_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
)

// TestMasterIsDeterministic masters the same source twice for an encoded
// and a WAV profile: the same bytes.
func TestMasterIsDeterministic(t *testing.T) {
	t.Parallel()
	heavy(t)
	src := speech(t)
	for _, name := range []string{"acx", "telephony"} {
		p := deliver.Builtin(name)
		var sums [2]string
		for i := range sums {
			out := filepath.Join(t.TempDir(), "out."+p.Extension())
			res, err := master.Master(context.Background(), src, nil, p, ffmpegEncoder{}, t.TempDir(), out)
			if err != nil {
				t.Fatal(err)
			}
			if sums[i] = sha(t, out); sums[i] != res.SHA256 {
				t.Fatalf("%s: Result.SHA256 %s, file %s", name, res.SHA256, sums[i])
			}
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: two masterings differ: %s, %s", name, sums[0], sums[1])
		}
	}
}

// pcmProfile is a 16 kHz 16-bit mono WAV profile with a head and tail.
func pcmProfile(head, tail float64) *deliver.Profile {
	return &deliver.Profile{Name: "pcm",
		Encoding: deliver.Encoding{Container: deliver.ContainerWAV, Codec: deliver.CodecPCM16, SampleRate: 16000, Channels: 1},
		Loudness: &deliver.Level{Measure: deliver.RMS, Target: -20, Min: -21, Max: -19},
		Peak:     &deliver.Ceiling{Measure: deliver.SamplePeak, Max: -1},
		Head:     &deliver.Pad{Seconds: head, Min: head, Max: head},
		Tail:     &deliver.Pad{Seconds: tail, Min: tail, Max: tail},
	}
}

// TestMasterPCMFramesExact: a tone between a second of silence at each end
// is trimmed to its sound and padded with exactly the head and tail; the
// frames returned are the file's, the file's head and tail are the
// profile's.
func TestMasterPCMFramesExact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	writeWAV(t, src, 16000, 4*16000, sine(16000, 440, 0.1, 16000, 3*16000))
	p := pcmProfile(0.5, 1.25)
	out := filepath.Join(dir, "out.wav")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := master.MasterPCM(context.Background(), src, nil, p, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(8000 + 2*16000 + 20000); frames != want {
		t.Errorf("frames %d, want %d (0.5 s + 2 s + 1.25 s at 16 kHz)", frames, want)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(len(b)-44) / 2; got != frames {
		t.Errorf("the file holds %d frames, MasterPCM said %d", got, frames)
	}
	m, err := master.Measure(context.Background(), out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Head != 0.5 || m.Tail != 1.25 || math.Abs(m.RMS+20) > 0.05 {
		t.Errorf("head %g s, tail %g s, RMS %.3f dB; want 0.5, 1.25, -20", m.Head, m.Tail, m.RMS)
	}
}

// TestCancelLeavesNoFile cancels a mastering while it writes its file:
// the error is the context's and the file is gone.
func TestCancelLeavesNoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "long.wav")
	writeWAV(t, src, 44100, 10*60*44100, sine(44100, 220, 0.2, 0, math.MaxInt64))
	p := deliver.Builtin("broadcast")
	out := filepath.Join(dir, "out.wav")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := master.Master(ctx, src, nil, p, nil, dir, out)
		done <- err
	}()
	for {
		if _, err := os.Stat(out); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("finished before it could be cancelled: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("out after cancel: %v", err)
	}
}

// TestSilentSourceRefused: a silent source, or one whose sound lies deeper
// than MaxGain under the target, is a clear error and no file, whatever
// rule the profile has (telephony's is a peak ceiling alone).
func TestSilentSourceRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	quiet := sine(16000, 440, 0.0002, 0, math.MaxInt64) // -77 dBFS
	cases := []struct {
		name string
		gen  func(int64) float64
		p    *deliver.Profile
		want string
	}{
		{"silent", func(int64) float64 { return 0 }, deliver.Builtin("broadcast"), "the source is silent: its loudness is below the -70 LUFS gate"},
		{"silent", func(int64) float64 { return 0 }, pcmProfile(0.5, 1), "the source is silent: it is digital silence"},
		{"silent", func(int64) float64 { return 0 }, deliver.Builtin("telephony"), "the source is silent: no 10 ms window is above -50 dBFS"},
		{"quiet", quiet, deliver.Builtin("broadcast"), "the source is silent: its loudness is below the -70 LUFS gate"},
		{"quiet", quiet, pcmProfile(0.5, 1), "quieter than the loudness target; mastering adds at most 48 dB"},
	}
	for _, c := range cases {
		src := filepath.Join(dir, c.name+".wav")
		writeWAV(t, src, 16000, 3*16000, c.gen)
		out := filepath.Join(dir, "out.wav")
		_, err := master.Master(context.Background(), src, nil, c.p, nil, dir, out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s: error %v, want %q", c.name, c.p.Name, err, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: out left: %v", c.name, err)
		}
	}
}

// TestTooLongRefused: a source longer than amazon-connect's 5 minutes is
// refused, naming the bound, before anything is written.
func TestTooLongRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "long.wav")
	writeWAV(t, src, 8000, 301*8000, sine(8000, 440, 0.3, 0, math.MaxInt64))
	out := filepath.Join(dir, "out.wav")
	_, err := master.Master(context.Background(), src, nil, deliver.Builtin("amazon-connect"), nil, dir, out)
	if err == nil || !strings.Contains(err.Error(), "over the profile's max_duration of 300 s") {
		t.Fatalf("error %v, want the 300 s bound named", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("out left: %v", err)
	}
}

// TestLoudSourceLimited: a source at full scale is limited under the
// ceiling of each peak rule, true or sample, whatever the codec.
func TestLoudSourceLimited(t *testing.T) {
	t.Parallel()
	heavy(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "loud.wav")
	// A full-scale square-ish wave: its true peak lies above its samples.
	writeWAV(t, src, 22050, 5*22050, func(i int64) float64 {
		return math.Max(-1, math.Min(1, 3*math.Sin(2*math.Pi*997*float64(i)/22050)))
	})
	for _, name := range []string{"telephony", "broadcast", "acx"} {
		p := deliver.Builtin(name)
		out := filepath.Join(dir, name+"."+p.Extension())
		res, err := master.Master(context.Background(), src, nil, p, ffmpegEncoder{}, dir, out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, ref := res.Measured, ffmpegRef(t, out)
		peak, refPeak := m.TruePeak, ref.truePeak
		if p.Peak.Measure == deliver.SamplePeak {
			peak, refPeak = m.SamplePeak, ref.peak
		}
		if peak > p.Peak.Max+deliver.Tolerance || refPeak > p.Peak.Max+deliver.Tolerance {
			t.Errorf("%s: peak %.3f (ffmpeg %.3f), ceiling %g", name, peak, refPeak, p.Peak.Max)
		}
	}
}

// TestRawSourceAndRoomTone masters headerless mu-law (the service's
// telephony output) with room tone at the head and tail: the tone's level
// is the noise floor, below the silence threshold, and the same bytes
// come out twice.
func TestRawSourceAndRoomTone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wav := filepath.Join(dir, "src.wav")
	writeWAV(t, wav, 8000, 3*8000, sine(8000, 300, 0.3, 4000, 20000))
	b, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 0, len(b)/2)
	for i := 44; i+1 < len(b); i += 2 {
		raw = append(raw, audio.MuLawEncode(int16(uint16(b[i])|uint16(b[i+1])<<8)))
	}
	src := filepath.Join(dir, "src.ulaw")
	if err := os.WriteFile(src, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	tone := -70.0
	p := pcmProfile(1, 1)
	p.Encoding.SampleRate = 8000
	p.Head.Tone, p.Tail.Tone = &tone, &tone
	p.NoiseFloor = &[]float64{-65}[0]
	format := &audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw}
	var sums []string
	for range 2 {
		out := filepath.Join(t.TempDir(), "out.wav")
		res, err := master.Master(context.Background(), src, format, p, nil, dir, out)
		if err != nil {
			t.Fatal(err)
		}
		if f := res.Measured.NoiseFloor; math.Abs(f-tone) > 0.5 {
			t.Errorf("noise floor %.2f dB, want the tone's %g", f, tone)
		}
		sums = append(sums, res.SHA256)
	}
	if sums[0] != sums[1] {
		t.Error("room tone differs between runs")
	}
}

type namedEncoder struct{ ffmpegEncoder }

func (namedEncoder) Identity(e deliver.Encoding) string { return "other ffmpeg " + e.Codec }

// TestIdentity: the identity names the mastering's version and the
// encoder's identity for encoded profiles, Go's WAV writer otherwise.
func TestIdentity(t *testing.T) {
	t.Parallel()
	acx, tel := deliver.Builtin("acx"), deliver.Builtin("telephony")
	if a, b := master.Identity(acx, ffmpegEncoder{}), master.Identity(acx, namedEncoder{}); a == b {
		t.Errorf("two encoders, one identity %q", a)
	}
	if got := master.Identity(tel, ffmpegEncoder{}); got != master.Identity(tel, nil) || !strings.Contains(got, "voxform wav") {
		t.Errorf("telephony identity %q depends on the encoder or lacks the WAV writer", got)
	}
	if got := master.Identity(acx, ffmpegEncoder{}); !strings.HasPrefix(got, "master 1;") || !strings.Contains(got, "test ffmpeg mp3") {
		t.Errorf("acx identity %q", got)
	}
}

// wrongEncoder encodes at half the profile's rate and bit rate.
type wrongEncoder struct{ ffmpegEncoder }

func (w wrongEncoder) Encode(ctx context.Context, in string, e deliver.Encoding, out string) error {
	e.SampleRate, e.Bitrate = e.SampleRate/2, e.Bitrate/2
	return w.ffmpegEncoder.Encode(ctx, in, e, out)
}

// TestFailedRulesNamedAndFileRemoved: a delivered file that misses rules
// is an error naming each, measured against target, and is removed.
func TestFailedRulesNamedAndFileRemoved(t *testing.T) {
	t.Parallel()
	heavy(t)
	src := speech(t)
	out := filepath.Join(t.TempDir(), "out.mp3")
	_, err := master.Master(context.Background(), src, nil, deliver.Builtin("acx"), wrongEncoder{}, t.TempDir(), out)
	var re *master.RulesError
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want a *RulesError", err)
	}
	var rules []string
	for _, r := range re.Failed {
		rules = append(rules, r.Rule)
	}
	if strings.Join(rules, ",") != "sample_rate,bitrate" {
		t.Errorf("failed rules %v, want sample_rate and bitrate", rules)
	}
	for _, s := range []string{"sample_rate 22050 Hz, want 44100 Hz", "bitrate 96 kbps, want 192 kbps"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("out left: %v", err)
	}
}

// TestSourcesOfEveryDecodedContainer masters MP3 and Ogg Opus sources
// (the service's other outputs) and stereo WAV to a mono profile.
func TestSourcesOfEveryDecodedContainer(t *testing.T) {
	t.Parallel()
	heavy(t)
	requireTool(t, "ffmpeg")
	src := speech(t)
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"src.mp3":      {"-c:a", "libmp3lame", "-b:a", "64k"},
		"src.ogg":      {"-ar", "48000", "-c:a", "libopus", "-b:a", "32k"},
		"stereo.wav":   {"-ac", "2", "-c:a", "pcm_s16le"},
		"float24k.wav": {"-ar", "24000", "-c:a", "pcm_f32le"},
	} {
		in := filepath.Join(dir, name)
		if err := run(context.Background(), nil, "ffmpeg", append(append([]string{"-nostdin", "-loglevel", "error", "-i", src}, args...), in)...); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".out.wav")
		res, err := master.Master(context.Background(), in, nil, deliver.Builtin("telephony"), nil, dir, out)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m := res.Measured; m.Seconds < 20 || m.Channels != 1 || m.SampleRate != 8000 {
			t.Errorf("%s: %.2f s, %d ch, %d Hz", name, m.Seconds, m.Channels, m.SampleRate)
		}
	}
}

// TestSilenceOfAnEncodingAlone: a profile of an encoding and no other
// rule (a recording's, contract.RecordingProfile) takes a silent or very
// quiet source as it is: there is no loudness to reach and no sound to
// pad, and an IVR pause is silence.
func TestSilenceOfAnEncodingAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := &deliver.Profile{Name: "encoding", Encoding: deliver.Encoding{Container: deliver.ContainerWAV, Codec: deliver.CodecPCM16, SampleRate: 8000, Channels: 1}}
	for name, gen := range map[string]func(int64) float64{"silent": func(int64) float64 { return 0 }, "quiet": sine(16000, 440, 0.0002, 0, math.MaxInt64)} {
		src := filepath.Join(dir, name+".wav")
		writeWAV(t, src, 16000, 2*16000, gen)
		out := filepath.Join(dir, name+"-out.wav")
		res, err := master.Master(context.Background(), src, nil, p, nil, dir, out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Abs(res.Seconds-2) > 0.001 {
			t.Errorf("%s: %.4f s mastered, want the source's 2 s", name, res.Seconds)
		}
	}
}
