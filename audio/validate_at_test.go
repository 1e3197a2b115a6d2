package audio_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
)

// ValidateRawAt checks the size bytes given, read through the ReaderAt
// (the handle writing the file): whole frames, no container header; size,
// not what lies beyond it, is the file.
func TestValidateRawAt(t *testing.T) {
	s16 := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	mulaw := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw}
	var wav bytes.Buffer
	if err := audio.WriteWAVHeader(&wav, s16, 4); err != nil {
		t.Fatal(err)
	}
	wav.Write(make([]byte, 4))
	for _, tc := range []struct {
		name    string
		data    []byte
		size    int64
		f       audio.Format
		wantErr string
	}{
		{"whole frames", make([]byte, 320), 320, s16, ""},
		{"half a frame", make([]byte, 321), 321, s16, "321 bytes is not a whole number of 2-byte frames"},
		{"whole frames within a longer read", make([]byte, 321), 320, s16, ""},
		{"24-bit stereo", make([]byte, 60), 60, audio.Format{SampleRate: 48000, Channels: 2, BitsPerSample: 24, Encoding: audio.PCM}, ""},
		{"24-bit stereo, part of a frame", make([]byte, 61), 61, audio.Format{SampleRate: 48000, Channels: 2, BitsPerSample: 24, Encoding: audio.PCM}, "61 bytes is not a whole number of 6-byte frames"},
		{"mulaw any length", []byte{0xff, 0x7f, 0}, 3, mulaw, ""},
		{"a wav header", wav.Bytes(), int64(wav.Len()), s16, "raw audio starts with a wav header"},
		{"a wav header past the size", append(make([]byte, 64), wav.Bytes()...), 64, s16, ""},
		{"no format", make([]byte, 2), 2, audio.Format{}, "sample rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := audio.ValidateRawAt(bytes.NewReader(tc.data), tc.size, tc.f)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
