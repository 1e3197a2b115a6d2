package state

import (
	"bytes"
	"strings"
	"testing"
)

// TestOutputEncoderCheckedOnRead: the encoder an encoded output records
// reads back; one over MaxEncoderLen or holding a control character is
// refused as the state is read, named by its place.
func TestOutputEncoderCheckedOnRead(t *testing.T) {
	for _, tc := range []struct {
		encoder, want string
	}{
		{"master 1; ffmpeg 5.1.9 (libavcodec 59.37.100) -c:a libmp3lame", ""},
		{strings.Repeat("x", MaxEncoderLen+1), "outputs[0].encoder: not an encoder identity (at most 4096 bytes"},
		{"ffmpeg \x1b[2J", "outputs[0].encoder"},
		{"ffmpeg 99 \u202etxt.exe", "outputs[0].encoder"},
	} {
		f := New()
		r := sampleResource("a")
		r.Outputs[0].Encoder = tc.encoder
		f.Resources["synthesis.a"] = r
		var buf bytes.Buffer
		if err := f.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(&buf)
		switch {
		case tc.want == "" && (err != nil || got.Resources["synthesis.a"].Outputs[0].Encoder != tc.encoder):
			t.Errorf("%.20q: read back %v", tc.encoder, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%.20q: %v, want refused with %q", tc.encoder, err, tc.want)
		}
	}
}
