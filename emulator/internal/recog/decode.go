package recog

import (
	"fmt"
	"io"

	"github.com/voxform/voxform/audio"
)

// decoded is a decoded audio stream.
type decoded struct {
	rate, channels int
	mono           audio.SampleSource
	declared       float64 // duration the header declares, seconds (0: unknown)
}

// decodeAudio decodes WAV (PCM, float, mu-law, A-law) to mono samples.
func decodeAudio(r io.ReadSeeker, container string) (*decoded, error) {
	if container != "wav" {
		return nil, fmt.Errorf("decode %s: not supported", container)
	}
	f, dataBytes, err := audio.ReadWAVHeader(r)
	if err != nil {
		return nil, err
	}
	var body io.Reader = r
	d := &decoded{rate: f.SampleRate, channels: f.Channels}
	if dataBytes > 0 {
		body = io.LimitReader(r, dataBytes)
		d.declared = float64(dataBytes) / float64(f.ByteRate())
	}
	src, err := audio.NewSampleReader(body, f)
	if err != nil {
		return nil, err
	}
	d.mono = audio.Mono(src)
	return d, nil
}
