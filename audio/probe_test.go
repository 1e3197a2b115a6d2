package audio_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio"
)

// TestProbeMatchesFFprobe generates files of every container and encoding
// with ffmpeg and sox and compares Probe with ffprobe. MP3 durations count
// whole frames (as ffprobe does for files with a Xing header), so they
// include the encoder delay and padding; the tolerance is a frame or two.
// conformance: TTS-034, TTS-036, TTS-037, TTS-038, TTS-039
func TestProbeMatchesFFprobe(t *testing.T) {
	tests := []struct {
		name      string
		gen       func(t *testing.T) string
		container audio.Container
		codec     string
		bits      int
		tolerance time.Duration
		decoded   bool // compare with the length ffmpeg decodes, not ffprobe's figure
	}{
		{"wav s16", ff("a.wav", 1.3, 16000, "-c:a", "pcm_s16le"), audio.ContainerWAV, "pcm", 16, time.Millisecond, false},
		{"wav u8 stereo", ff("a.wav", 0.7, 22050, "-ac", "2", "-c:a", "pcm_u8"), audio.ContainerWAV, "pcm", 8, time.Millisecond, false},
		{"wav s24", ff("a.wav", 2, 48000, "-c:a", "pcm_s24le"), audio.ContainerWAV, "pcm", 24, time.Millisecond, false},
		{"wav s32", ff("a.wav", 1, 44100, "-c:a", "pcm_s32le"), audio.ContainerWAV, "pcm", 32, time.Millisecond, false},
		{"wav f32", ff("a.wav", 1, 24000, "-c:a", "pcm_f32le"), audio.ContainerWAV, "float", 32, time.Millisecond, false},
		{"wav mulaw", ff("a.wav", 3.1, 8000, "-c:a", "pcm_mulaw"), audio.ContainerWAV, "mulaw", 8, time.Millisecond, false},
		{"wav alaw", ff("a.wav", 3.1, 8000, "-c:a", "pcm_alaw"), audio.ContainerWAV, "alaw", 8, time.Millisecond, false},
		{"wav extensible 6ch", ff("a.wav", 1, 48000, "-ac", "6", "-c:a", "pcm_s16le"), audio.ContainerWAV, "pcm", 16, time.Millisecond, false},
		{"sox wav mulaw", soxGen("a.wav", 2.5, "-r", "8000", "-e", "mu-law"), audio.ContainerWAV, "mulaw", 8, time.Millisecond, false},
		{"sox wav alaw", soxGen("a.wav", 2.5, "-r", "8000", "-e", "a-law"), audio.ContainerWAV, "alaw", 8, time.Millisecond, false},
		{"sox wav float", soxGen("a.wav", 1.5, "-r", "16000", "-e", "floating-point", "-b", "32"), audio.ContainerWAV, "float", 32, time.Millisecond, false},
		{"sox wav 24-bit", soxGen("a.wav", 1.5, "-r", "44100", "-b", "24"), audio.ContainerWAV, "pcm", 24, time.Millisecond, false},
		{"mp3 cbr with Info header", ff("a.mp3", 2.2, 44100, "-c:a", "libmp3lame", "-b:a", "128k"), audio.ContainerMP3, "mp3", 0, 30 * time.Millisecond, false},
		{"mp3 cbr no Xing", ff("a.mp3", 2.2, 24000, "-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"), audio.ContainerMP3, "mp3", 0, 30 * time.Millisecond, false},
		{"mp3 vbr", ff("a.mp3", 4.5, 48000, "-c:a", "libmp3lame", "-q:a", "4"), audio.ContainerMP3, "mp3", 0, 30 * time.Millisecond, false},
		{"mp3 8k mono", ff("a.mp3", 1.5, 8000, "-c:a", "libmp3lame", "-b:a", "32k"), audio.ContainerMP3, "mp3", 0, 80 * time.Millisecond, false},
		{"mp3 ID3v2", ff("a.mp3", 1.5, 44100, "-c:a", "libmp3lame", "-metadata", "title=voxform", "-id3v2_version", "4"), audio.ContainerMP3, "mp3", 0, 30 * time.Millisecond, false},
		{"ogg opus", ff("a.ogg", 2.345, 48000, "-c:a", "libopus", "-b:a", "32k"), audio.ContainerOgg, "opus", 0, time.Millisecond, true},
		{"ogg opus 16k", ff("a.opus", 1.5, 16000, "-c:a", "libopus"), audio.ContainerOgg, "opus", 0, time.Millisecond, true},
		{"ogg vorbis", ff("a.ogg", 3.21, 44100, "-c:a", "libvorbis"), audio.ContainerOgg, "vorbis", 0, 2 * time.Millisecond, false},
		{"flac", ff("a.flac", 2.5, 16000, "-c:a", "flac"), audio.ContainerFLAC, "flac", 16, time.Millisecond, false},
		{"flac 24-bit", ff("a.flac", 1.25, 48000, "-c:a", "flac", "-sample_fmt", "s32"), audio.ContainerFLAC, "flac", 24, time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.gen(t)
			want := ffprobe(t, path)
			if tt.decoded {
				// ffprobe counts an Opus stream's pre-skip; the audio a
				// decoder produces does not include it.
				pcm := ffmpegPipe(t, nil, "-i", path, "-f", "s16le", "-ac", "1", "-ar", "48000", "-")
				want.Duration = audio.FramesDuration(int64(len(pcm)/2), 48000)
			}
			got, err := audio.Probe(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Container != tt.container || got.Codec != tt.codec || got.SampleRate != want.SampleRate ||
				got.Channels != want.Channels || got.BitsPerSample != tt.bits {
				t.Errorf("Probe = %+v; ffprobe %+v; want container %s codec %s bits %d", got, want, tt.container, tt.codec, tt.bits)
			}
			if d := absDur(got.Duration - want.Duration); d > tt.tolerance {
				t.Errorf("duration %v, ffprobe %v (off by %v, tolerance %v)", got.Duration, want.Duration, d, tt.tolerance)
			}
		})
	}
}

// ff returns a generator of an ffmpeg-made file.
func ff(name string, secs float64, rate int, args ...string) func(*testing.T) string {
	return func(t *testing.T) string { return genFFmpeg(t, name, secs, rate, args...) }
}

// soxGen returns a generator of a sox-made file of a 440 Hz sine.
func soxGen(name string, secs float64, args ...string) func(*testing.T) string {
	return func(t *testing.T) string {
		path := t.TempDir() + "/" + name
		a := append([]string{"-n"}, args...)
		a = append(a, path, "synth", strings.TrimRight(strings.TrimRight(time.Duration(secs*float64(time.Second)).String(), "s"), "."), "sine", "440")
		run(t, "sox", a...)
		return path
	}
}

// TestProbeWAVSizes checks probing of headers whose sizes disagree with the
// file, against ffprobe.
func TestProbeWAVSizes(t *testing.T) {
	data := make([]byte, 32000)
	fmtc := chunk("fmt ", fmtBody(1, 1, 16000, 16))
	tests := []struct {
		name string
		in   []byte
	}{
		{"data size 0, audio follows", riff(36, fmtc, []byte("data\x00\x00\x00\x00"), data)},
		{"streaming sizes", riff(0xFFFFFFFF, fmtc, []byte("data\xff\xff\xff\xff"), data)},
		{"data size larger than the file", riff(0x10000, fmtc, []byte("data\x00\x00\x01\x00"), data)},
		{"data size smaller, LIST after", riff(uint32(4+len(fmtc)+8+16000+16), fmtc, chunk("data", data[:16000]), chunk("LIST", []byte("INFOabcd")))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "a.wav", tt.in)
			got, err := audio.Probe(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := ffprobe(t, path).Duration; absDur(got.Duration-want) > time.Millisecond {
				t.Errorf("duration %v, ffprobe %v", got.Duration, want)
			}
		})
	}
}

func TestProbeRaw(t *testing.T) {
	tests := []struct {
		size int64
		f    audio.Format
		want audio.Info
	}{
		{16000, mulaw8k, audio.Info{Container: audio.ContainerMuLaw, Codec: "mulaw", SampleRate: 8000, Channels: 1, BitsPerSample: 8, Bitrate: 64000, Duration: 2 * time.Second}},
		{8001, alaw8k, audio.Info{Container: audio.ContainerALaw, Codec: "alaw", SampleRate: 8000, Channels: 1, BitsPerSample: 8, Bitrate: 64000, Duration: 1000125 * time.Microsecond}},
		{48001, mono16k, audio.Info{Container: audio.ContainerRaw, Codec: "pcm", SampleRate: 16000, Channels: 1, BitsPerSample: 16, Bitrate: 256000, Duration: 1500 * time.Millisecond}},
		{0, stereo48, audio.Info{Container: audio.ContainerRaw, Codec: "pcm", SampleRate: 48000, Channels: 2, BitsPerSample: 24, Bitrate: 2304000}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Container.String()+"_"+tt.f.String(), func(t *testing.T) {
			got, err := audio.ProbeRaw(tt.size, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := audio.ProbeRaw(10, audio.Format{}); err == nil {
		t.Error("zero format: no error")
	}
}

func TestProbeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
		is   error
	}{
		{"empty", nil, "unknown audio container: file is empty", nil},
		{"text", []byte("hello, world\n"), "unknown audio container: not a WAV, MP3, Ogg, FLAC, AAC (ADTS), AMR, M4A or WebM file", nil},
		{"truncated wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), "not a WAV file: no fmt chunk before offset 12", audio.ErrNotWAV},
		{"id3 only", append([]byte("ID3\x04\x00\x00\x00\x00\x00\x05"), "hello"...), "not an MP3 file: no MPEG audio frame in the first 65536 bytes after the tags", nil},
		{"ogg garbage", []byte("OggS\x00\x02garbage"), "not an Ogg file: first page is truncated", nil},
		{"flac truncated", []byte("fLaC\x00\x00\x00\x22\x10\x00"), "not a FLAC file: header is truncated", nil},
		{"m4a truncated", []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00"), `not an MP4 file: "ftyp" box at offset 0 has size 32, beyond its parent`, nil},
		{"m4a without sound", []byte("\x00\x00\x00\x10ftypM4A \x00\x00\x00\x00"), "not an audio file: MP4 without a sound track", nil},
		{"ogg flac", oggSeed("\x7fFLAC\x01\x00\x00\x01fLaC", 100), "not supported by voxform: FLAC in Ogg", audio.ErrUnsupported},
		{"webm garbage", []byte("\x1A\x45\xDF\xA3\x00"), "not a WebM file: no EBML header", nil},
		{"aac junk", []byte("\xFF\xF1\x50\x80\x00\x1F\xFC"), "not an AAC file: no ADTS frame header at the start", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := audio.ProbeReader(bytes.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
	_, err := audio.Probe("testdata/does-not-exist.wav")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want audio.Container
	}{
		{"RIFF\x00\x00\x00\x00WAVEfmt ", audio.ContainerWAV},
		{"RIFF\x00\x00\x00\x00AVI LIST", audio.ContainerUnknown},
		{"ID3\x04\x00\x00\x00\x00\x00\x00", audio.ContainerMP3},
		{"\xFF\xFB\x90\x64\x00", audio.ContainerMP3},
		{"\xFF\xF3\x48\xC4\x00", audio.ContainerMP3},
		{"\xFF\xF1\x50\x80\x02\x1F\xFC", audio.ContainerAAC},
		{"\xFF\xFF\xFF\xFF", audio.ContainerUnknown},
		{"OggS\x00\x02", audio.ContainerOgg},
		{"fLaC\x00\x00\x00\x22", audio.ContainerFLAC},
		{"\x00\x00\x00\x20ftypM4A ", audio.ContainerM4A},
		{"\x00\x00\x00\x18ftypmp42", audio.ContainerM4A},
		{"\x1A\x45\xDF\xA3\x9F\x42\x86\x81", audio.ContainerWebM},
		{"#!AMR\n", audio.ContainerAMR},
		{"#!AMR-WB\n", audio.ContainerAMR},
		{"", audio.ContainerUnknown},
		{"RIF", audio.ContainerUnknown},
	}
	for _, tt := range tests {
		t.Run(string(tt.want)+"_"+strings.ToValidUTF8(tt.head[:min(4, len(tt.head))], "?"), func(t *testing.T) {
			if got := audio.Sniff([]byte(tt.head)); got != tt.want {
				t.Errorf("Sniff(%q) = %s, want %s", tt.head, got, tt.want)
			}
		})
	}
}
