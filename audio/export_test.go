package audio

import (
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// MP3Gapless returns what the LAME tag of the MP3 file in rs says: the
// encoder delay and padding in samples and the number of audio frames
// (0 if unknown); ok is false without a tag.
func MP3Gapless(rs io.ReadSeeker) (delay, padding, frames int64, ok bool) {
	_, g, err := mp3.ReadGapless(rs)
	if err != nil || g == nil {
		return 0, 0, 0, false
	}
	return g.Start, g.End, g.Frames, true
}

// MP3DecoderDelay is the delay of the synthesis filterbank that ffmpeg
// adds to the encoder delay it skips.
const MP3DecoderDelay = mp3.DecoderDelay

// What only this package calls, under the names its tests use.
var (
	NewEncoder     = newEncoder
	ToPCM16Mono    = toPCM16Mono
	NewFrameReader = newFrameReader
	ErrNotWAV      = errNotWAV
)

// RealtimeFrameBytes is realtimeFrameBytes, for the tests.
const RealtimeFrameBytes = realtimeFrameBytes
