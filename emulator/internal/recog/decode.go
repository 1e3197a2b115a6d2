package recog

import (
	"fmt"
	"io"

	"github.com/voxform/voxform/audio"
)

// decoded is a decoded audio stream.
type decoded struct {
	rate, channels int
	samples        audio.SampleSource // interleaved, channels per frame
	declared       float64            // duration a WAV header declares, seconds (0: unknown)
}

// decodeAudio decodes WAV (PCM, float, mu-law, A-law) and MP3 to
// interleaved samples with audio.Decode.
func decodeAudio(r io.ReadSeeker, container string) (*decoded, error) {
	var declared float64
	if container == "wav" {
		if f, n, err := audio.ReadWAVHeader(r); err == nil && n > 0 && f.ByteRate() > 0 {
			declared = float64(n) / float64(f.ByteRate())
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	d, err := audio.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", container, err)
	}
	return &decoded{rate: d.Format.SampleRate, channels: d.Format.Channels, samples: d.Samples, declared: declared}, nil
}
