package audio

import (
	"bufio"
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
	"github.com/voxform/voxform/audio/ogg"
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

// The Ogg page helpers of the tests written before package ogg was the
// one page codec, on top of it.

const (
	oggHeaderLen    = ogg.HeaderLen
	oggBOS          = ogg.BOS
	oggEOS          = ogg.EOS
	oggFlagBOS      = ogg.BOS
	oggFlagContinue = ogg.Continued
	oggFlagEOS      = ogg.EOS
)

// oggCRC is the CRC of a page whose CRC field is zero.
func oggCRC(b []byte) uint32 { return ogg.CRC(b) }

// readPage reads one whole Ogg page from br and checks its CRC; io.EOF
// when br ends before a page starts.
func readPage(br *bufio.Reader) ([]byte, error) {
	p, err := ogg.NewReader(br).Next()
	if err != nil {
		return nil, err
	}
	return ogg.Append(nil, &p), nil
}

// oggBytes is a whole page found by parseOggPage.
type oggBytes struct {
	body []byte
	size int
}

// parseOggPage parses the page at the start of b.
func parseOggPage(b []byte) (oggBytes, bool) {
	p, ok := ogg.Parse(b)
	return oggBytes{body: p.Body, size: p.Size()}, ok
}
