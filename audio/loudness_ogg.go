package audio

import (
	"context"
	"fmt"
	"io"
)

// measureOgg reads the first page of an Ogg file to name its codec. No
// Ogg codec is decoded, so every Ogg file gives a *NoDecoderError.
func measureOgg(_ context.Context, r io.Reader) (Loudness, error) {
	first, err := readOggPage(r)
	if err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	st, err := parseOggHead(first.body)
	if st.codec == "" {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	return Loudness{}, &NoDecoderError{Container: ContainerOgg, Codec: st.codec}
}
