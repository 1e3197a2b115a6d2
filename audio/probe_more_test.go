package audio_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
)

// TestProbeOtherContainers covers the containers batch recognition
// accepts besides WAV, MP3, Ogg and FLAC.
func TestProbeOtherContainers(t *testing.T) {
	tests := []struct {
		name      string
		gen       func(t *testing.T) string
		container audio.Container
		codec     string
		tolerance time.Duration
		decoded   bool // compare with the decoded length (ffprobe has no duration)
	}{
		{"aac adts", ff("a.aac", 2.5, 44100, "-c:a", "aac"), audio.ContainerAAC, "aac", 50 * time.Millisecond, false},
		{"aac adts 16k", ff("a.aac", 1.2, 16000, "-c:a", "aac", "-ac", "2"), audio.ContainerAAC, "aac", 100 * time.Millisecond, false},
		{"m4a aac", ff("a.m4a", 2.5, 44100, "-c:a", "aac"), audio.ContainerM4A, "aac", 30 * time.Millisecond, false},
		{"m4a alac", ff("a.m4a", 1.5, 48000, "-c:a", "alac"), audio.ContainerM4A, "alac", 2 * time.Millisecond, false},
		{"mp4 aac faststart", ff("a.mp4", 3, 24000, "-c:a", "aac", "-movflags", "+faststart"), audio.ContainerM4A, "aac", 50 * time.Millisecond, false},
		{"webm opus", ff("a.webm", 2.5, 48000, "-c:a", "libopus"), audio.ContainerWebM, "opus", 10 * time.Millisecond, false},
		{"webm vorbis", ff("a.webm", 1.75, 44100, "-c:a", "libvorbis"), audio.ContainerWebM, "vorbis", 10 * time.Millisecond, false},
		{"webm live, no duration", ff("a.webm", 2.5, 48000, "-c:a", "libopus", "-f", "webm", "-live", "1"), audio.ContainerWebM, "opus", 30 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.gen(t)
			want := ffprobe(t, path)
			if tt.decoded {
				pcm := ffmpegPipe(t, nil, "-i", path, "-f", "s16le", "-ac", "1", "-ar", "48000", "-")
				want.Duration = audio.FramesDuration(int64(len(pcm)/2), 48000)
			}
			got, err := audio.Probe(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Container != tt.container || got.Codec != tt.codec || got.SampleRate != want.SampleRate || got.Channels != want.Channels {
				t.Errorf("Probe = %+v; ffprobe %+v; want %s/%s", got, want, tt.container, tt.codec)
			}
			if d := absDur(got.Duration - want.Duration); d > tt.tolerance {
				t.Errorf("duration %v, want %v (off by %v, tolerance %v)", got.Duration, want.Duration, d, tt.tolerance)
			}
		})
	}
}

func TestProbeAMR(t *testing.T) {
	path := writeFile(t, "a.amr", amrFile(150))
	got, err := audio.Probe(path)
	if err != nil {
		t.Fatal(err)
	}
	want := ffprobe(t, path)
	if got.Codec != "amr_nb" || got.SampleRate != 8000 || got.Channels != 1 || got.Duration != 3020*time.Millisecond {
		t.Errorf("Probe = %+v, want amr_nb 8000 Hz mono 3.02s (151 frames)", got)
	}
	if want.Codec != "amr_nb" || want.SampleRate != 8000 {
		t.Errorf("ffprobe reads the file as %+v", want)
	}
	wb := append([]byte("#!AMR-WB\n"), bytes.Repeat(append([]byte{8<<3 | 4}, make([]byte, 60)...), 50)...)
	got, err = audio.ProbeReader(bytes.NewReader(wb))
	if err != nil || got.Codec != "amr_wb" || got.SampleRate != 16000 || got.Duration != time.Second {
		t.Errorf("AMR-WB: %+v, %v", got, err)
	}
}

// TestProbeID3Prefixed checks that an ID3v2 tag in front of FLAC or ADTS
// (some taggers add one) does not make the file an MP3.
func TestProbeID3Prefixed(t *testing.T) {
	id3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x20"), make([]byte, 32)...)
	tests := []struct {
		name      string
		gen       func(t *testing.T) string
		container audio.Container
	}{
		{"flac", ff("a.flac", 1, 16000, "-c:a", "flac"), audio.ContainerFLAC},
		{"aac", ff("a.aac", 1, 16000, "-c:a", "aac"), audio.ContainerAAC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plain := tt.gen(t)
			want, err := audio.Probe(plain)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(plain)
			got, err := audio.ProbeReader(bytes.NewReader(append(bytes.Clone(id3), b...)))
			if err != nil {
				t.Fatal(err)
			}
			if got.Container != tt.container || got != want {
				t.Errorf("with ID3 tag: %+v, without: %+v", got, want)
			}
		})
	}
}
