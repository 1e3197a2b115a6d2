package master_test

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
)

// Tolerances against ffmpeg (issue 28: within 0.1 LU and 0.1 dB).
const (
	tolLU = 0.1
	tolDB = 0.1
)

// customProfiles are profiles of the codecs no built-in uses: AAC in MP4
// and Opus in Ogg, and stereo.
func customProfiles() map[string]*deliver.Profile {
	aac := deliver.Builtin("podcast")
	aac.Name = "aac"
	aac.Encoding = deliver.Encoding{Container: deliver.ContainerMP4, Codec: deliver.CodecAAC, SampleRate: 48000, Channels: 2, BitrateMode: deliver.VBR, Bitrate: 128000}
	opus := deliver.Builtin("broadcast")
	opus.Name = "opus"
	opus.Encoding = deliver.Encoding{Container: deliver.ContainerOgg, Codec: deliver.CodecOpus, SampleRate: 48000, Channels: 1, BitrateMode: deliver.VBR, Bitrate: 64000}
	opus.Loudness = &deliver.Level{Measure: deliver.LUFS, Target: -19, Min: -20, Max: -18}
	// A range the encoding's own change of loudness would miss: LAME at
	// 128 kbps takes about 0.45 LU off this speech.
	tight := deliver.Builtin("podcast")
	tight.Name = "tight-mp3"
	tight.Loudness.Min, tight.Loudness.Max = -16.2, -15.8
	return map[string]*deliver.Profile{"aac": aac, "opus": opus, "tight-mp3": tight}
}

// TestProfilesMeetRulesAsFFmpegMeasures masters synthetic speech to every
// built-in profile (and to AAC, Opus and a tight MP3 profile): every rule passes, the
// file is the profile's format as ffprobe reads it, and Measure agrees
// with ffmpeg's ebur128 and astats filters.
func TestProfilesMeetRulesAsFFmpegMeasures(t *testing.T) {
	t.Parallel()
	heavy(t)
	requireTool(t, "ffprobe")
	src := speech(t)
	profiles := customProfiles()
	for _, n := range deliver.BuiltinNames() {
		profiles[n] = deliver.Builtin(n)
	}
	for name, p := range profiles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out."+p.Extension())
			res, err := master.Master(context.Background(), src, nil, p, ffmpegEncoder{}, t.TempDir(), out)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Results {
				if !r.Pass {
					t.Errorf("rule %s: %s, want %s", r.Rule, r.Measured, r.Target)
				}
			}
			checkProbe(t, out, p.Encoding)
			m, ref := res.Measured, ffmpegRef(t, out)
			t.Logf("%s: measured %.3f LUFS %.3f dB RMS %.3f dBTP %.3f dBFS, floor %.2f, head %.3f s tail %.3f s; ffmpeg %.3f LUFS %.3f dB RMS %.3f dBTP %.3f dBFS",
				name, m.Integrated, m.RMS, m.TruePeak, m.SamplePeak, m.NoiseFloor, m.Head, m.Tail, ref.integrated, ref.rms, ref.truePeak, ref.peak)
			near(t, "integrated", m.Integrated, ref.integrated, tolLU)
			near(t, "true peak", m.TruePeak, ref.truePeak, tolDB)
			near(t, "RMS", m.RMS, ref.rms, tolDB)
			near(t, "sample peak", m.SamplePeak, ref.peak, tolDB)
		})
	}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(want) || math.Abs(got-want) > tol {
		t.Errorf("%s: voxform %.3f, ffmpeg %.3f (tolerance %g)", what, got, want, tol)
	}
}

// checkProbe reads out with ffprobe: its codec, rate and channels are the
// profile's.
func checkProbe(t *testing.T, path string, e deliver.Encoding) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_streams", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p struct {
		Streams []struct {
			Codec      string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &p); err != nil || len(p.Streams) != 1 {
		t.Fatalf("ffprobe: %v %s", err, out)
	}
	s := p.Streams[0]
	codec := e.Codec
	if codec == deliver.CodecMP3 {
		codec = "mp3"
	}
	if s.Codec != codec || s.SampleRate != strconv.Itoa(e.SampleRate) || s.Channels != e.Channels {
		t.Errorf("ffprobe: %s %s Hz %d ch, want %s %d Hz %d ch", s.Codec, s.SampleRate, s.Channels, codec, e.SampleRate, e.Channels)
	}
}

// TestMeasureMP3BitrateMode: an MP3 file whose frames share a bit rate is
// CBR at that rate; one encoded VBR is not.
func TestMeasureMP3BitrateMode(t *testing.T) {
	t.Parallel()
	requireTool(t, "ffmpeg")
	src := speech(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		mode string
		rate int
	}{
		{[]string{"-b:a", "192k"}, deliver.CBR, 192000},
		{[]string{"-q:a", "4"}, deliver.VBR, 0},
	} {
		out := filepath.Join(dir, c.mode+".mp3")
		args := append([]string{"-nostdin", "-loglevel", "error", "-i", src, "-ar", "44100", "-c:a", "libmp3lame"}, c.args...)
		if err := exec.Command("ffmpeg", append(args, out)...).Run(); err != nil {
			t.Fatal(err)
		}
		m, err := master.Measure(context.Background(), out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.BitrateMode != c.mode || (c.rate > 0 && m.Bitrate != c.rate) || m.Bitrate <= 0 {
			t.Errorf("%v: %s %d bit/s, want %s %d", c.args, m.BitrateMode, m.Bitrate, c.mode, c.rate)
		}
	}
}
