package join

import (
	"bufio"

	"github.com/voxform/voxform/audio/ogg"
)

// The Ogg page helpers of the tests written before package ogg was the
// one page codec, on top of it.

const (
	oggHeaderLen = ogg.HeaderLen
	oggBOS       = ogg.BOS
	oggEOS       = ogg.EOS
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
