package audio_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/voxform/voxform/audio"
)

// BenchmarkDecodeMP3 decodes ten seconds of speech-like audio (pink noise
// under a tone) from memory at 16 kHz (MPEG-2) and 44.1 kHz (MPEG-1), to
// the samples Decode yields; b.SetBytes counts the MP3 bytes. Before the
// decoder replaced github.com/hajimehoshi/go-mp3, the same benchmark of
// go-mp3 took 3.3 times as long at both rates (commit "audio: MP3 decoder
// fuzz target and a benchmark against go-mp3").
func BenchmarkDecodeMP3(b *testing.B) {
	for _, rate := range []int{16000, 44100} {
		path := ffmpegMake(b, b.TempDir(), "a.mp3", "-f", "lavfi", "-i",
			"anoisesrc=color=pink:amplitude=0.2:d=10:seed=1,volume=1[n];sine=frequency=300:d=10[s];[n][s]amix=inputs=2",
			"-ar", fmt.Sprint(rate), "-c:a", "libmp3lame", "-b:a", "64k")
		mp3, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%d/voxform", rate), func(b *testing.B) {
			b.SetBytes(int64(len(mp3)))
			b.ReportAllocs()
			buf := make([]float64, 4096)
			for b.Loop() {
				d, err := audio.Decode(bytes.NewReader(mp3))
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := d.Samples.ReadSamples(buf)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
