package audio_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
)

func TestProbeMP3Synthetic(t *testing.T) {
	frameDur := func(n int64) time.Duration { return audio.FramesDuration(n*1152, 44100) }
	id3 := append([]byte("ID3\x03\x00\x00\x00\x00\x01\x00"), make([]byte, 128)...)
	tests := []struct {
		name string
		in   []byte
		want time.Duration
	}{
		{"frame scan", mp3Frames(100), frameDur(100)},
		{"ID3v2 then frames", concat(id3, mp3Frames(50)), frameDur(50)},
		{"ID3v1 tail", concat(mp3Frames(40), []byte("TAG"), make([]byte, 125)), frameDur(40)},
		{"junk after the tag", concat(id3, []byte{0xFF, 0xFB, 0, 1, 2, 3}, mp3Frames(30)), frameDur(30)},
		{"junk between frames", concat(mp3Frames(10), []byte("junkjunk\xFF\xFB\x90"), mp3Frames(10)), frameDur(20)},
		{"truncated last frame", concat(mp3Frames(10), mp3Frame()[:200]), frameDur(10)},
		{"Xing frame count", concat(xingFrame(1000), mp3Frames(5)), frameDur(1000)},
		{"VBRI frame count", concat(vbriFrame(777), mp3Frames(5)), frameDur(777)},
		{"Xing without count", concat(xingFrame(0), mp3Frames(7)), frameDur(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := audio.ProbeReader(bytes.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if info.Duration != tt.want || info.SampleRate != 44100 || info.Channels != 2 || info.Codec != "mp3" {
				t.Errorf("got %+v, want duration %v, 44100 Hz stereo mp3", info, tt.want)
			}
		})
	}
}
