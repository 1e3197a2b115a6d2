package audio_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
)

// truncate returns a copy of the file at path without its last n bytes.
func truncate(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "cut", b[:len(b)-n])
}

func appendBytes(t *testing.T, path string, extra []byte) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return writeFile(t, "longer", append(b, extra...))
}

// conformance: TTS-034, TTS-036, TTS-037
func TestValidate(t *testing.T) {
	wav := func(t *testing.T) string { return genFFmpeg(t, "a.wav", 1, 16000, "-c:a", "pcm_s16le") }
	mp3 := func(t *testing.T) string {
		return genFFmpeg(t, "a.mp3", 1, 44100, "-c:a", "libmp3lame", "-write_id3v1", "1", "-metadata", "title=t")
	}
	opus := func(t *testing.T) string { return genFFmpeg(t, "a.ogg", 1, 48000, "-c:a", "libopus") }
	tests := []struct {
		name      string
		path      func(t *testing.T) string
		container audio.Container
		wantErr   string // substring; empty for a valid file
	}{
		{"ffmpeg wav", wav, audio.ContainerWAV, ""},
		{"ffmpeg mulaw wav", ff("a.wav", 1, 8000, "-c:a", "pcm_mulaw"), audio.ContainerWAV, ""},
		{"ffmpeg mp3", mp3, audio.ContainerMP3, ""},
		{"ffmpeg mp3 no Xing", ff("a.mp3", 1, 24000, "-c:a", "libmp3lame", "-write_xing", "0"), audio.ContainerMP3, ""},
		{"ffmpeg opus", opus, audio.ContainerOgg, ""},
		{"ffmpeg vorbis", ff("a.ogg", 1, 22050, "-c:a", "libvorbis"), audio.ContainerOgg, ""},
		{"ffmpeg flac", ff("a.flac", 1, 16000, "-c:a", "flac"), audio.ContainerFLAC, ""},
		{"wav with trailing chunk", func(t *testing.T) string {
			return appendBytes(t, wavFile(t, mono16k, 1000, 0x4B), chunk("LIST", []byte("INFOabcd")))
		}, audio.ContainerWAV, "RIFF size"},
		{"wav with trailing chunk, sizes right", func(t *testing.T) string {
			body := concat(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", make([]byte, 10)), chunk("LIST", []byte("INFOabc")))
			return writeFile(t, "a.wav", riff(uint32(4+len(body)), body))
		}, audio.ContainerWAV, ""},
		{"wav truncated", func(t *testing.T) string { return truncate(t, wav(t), 100) }, audio.ContainerWAV, "RIFF size"},
		{"wav with junk appended", func(t *testing.T) string { return appendBytes(t, wav(t), []byte("junk")) }, audio.ContainerWAV, "RIFF size"},
		{"wav streaming header", func(t *testing.T) string { return wavFile(t, mono16k, -1, 0) }, audio.ContainerWAV, "data size left unset"},
		{"wav half frame", func(t *testing.T) string { return wavFile(t, mono16k, 1001, 0) }, audio.ContainerWAV, "not a multiple of the frame size 2"},
		{"wav expected mp3", wav, audio.ContainerMP3, "file is wav, want mp3"},
		{"empty", func(t *testing.T) string { return writeFile(t, "empty", nil) }, audio.ContainerWAV, "file is empty"},
		{"mp3 truncated mid-frame", func(t *testing.T) string { return truncate(t, mp3(t), 128+200) }, audio.ContainerMP3, "truncated file?"},
		{"opus truncated", func(t *testing.T) string { return truncate(t, opus(t), 30) }, audio.ContainerOgg, "end-of-stream"},
		{"opus with junk appended", func(t *testing.T) string { return appendBytes(t, opus(t), []byte("junk")) }, audio.ContainerOgg, "4 bytes after the last Ogg page"},
		{"raw mulaw", func(t *testing.T) string { return writeFile(t, "a.ul", []byte{0xFF, 0x7F, 0x00}) }, audio.ContainerMuLaw, ""},
		{"mulaw with a WAV header", wav, audio.ContainerMuLaw, "mulaw audio starts with a wav header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := audio.Validate(tt.path(t), tt.container)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("valid file refused: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("no error, want %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
			case err != nil && !errors.Is(err, audio.ErrInvalid):
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// wavFile writes a WAV file with data bytes of value v; data < 0 writes a
// streaming header (sizes 0xFFFFFFFF) and 100 bytes.
func wavFile(t *testing.T, f audio.Format, data int, v byte) string {
	t.Helper()
	if data < 0 {
		b := withSizes(wavPiece(t, f, make([]byte, 100)), 0xFFFFFFFF, 0xFFFFFFFF)
		return writeFile(t, "s.wav", b)
	}
	p := wavPiece(t, f, make([]byte, data))
	return writeFile(t, "a.wav", p)
}
