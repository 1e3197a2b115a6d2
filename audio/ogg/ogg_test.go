package ogg_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio/ogg"
)

// TestRoundTrip: pages written by Append read back with Reader and Parse
// as they were, CRCs checked; a flipped byte is refused with its page and
// offset, or accepted when the reader is told to.
func TestRoundTrip(t *testing.T) {
	pages := []ogg.Page{
		{Flags: ogg.BOS, Serial: 7, Segments: []byte{3}, Body: []byte("abc")},
		{Granule: ogg.NoGranule, Serial: 7, Seq: 1, Segments: []byte{255, 0}, Body: bytes.Repeat([]byte("x"), 255)},
		{Flags: ogg.EOS | ogg.Continued, Granule: 960, Serial: 7, Seq: 2, Segments: []byte{2}, Body: []byte("yz")},
	}
	var b []byte
	for i := range pages {
		b = ogg.Append(b, &pages[i])
	}
	r := ogg.NewReader(bytes.NewReader(b))
	for i, want := range pages {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if got.Flags != want.Flags || got.Granule != want.Granule || got.Serial != want.Serial || got.Seq != want.Seq ||
			!bytes.Equal(got.Segments, want.Segments) || !bytes.Equal(got.Body, want.Body) || got.CheckCRC() != nil {
			t.Errorf("page %d: %+v, want %+v", i, got, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last page: %v, want io.EOF", err)
	}
	second := len(ogg.Append(nil, &pages[0]))
	b[second+40] ^= 1
	r = ogg.NewReader(bytes.NewReader(b))
	r.Next()
	_, err := r.Next()
	if want := "page 1: Ogg page CRC "; !errors.Is(err, ogg.ErrDamaged) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ", at byte 31") {
		t.Errorf("damaged page: %v, want %q... at byte 31", err, want)
	}
	r = ogg.NewReader(bytes.NewReader(b))
	r.AcceptBadCRC = true
	r.Next()
	if _, err := r.Next(); err != nil {
		t.Errorf("damaged page accepted: %v", err)
	}
	if _, err := ogg.NewReader(bytes.NewReader(b[:second+100])).Next(); err != nil {
		t.Fatal(err)
	}
	r = ogg.NewReader(bytes.NewReader(b[:second+100]))
	r.Next()
	if _, err := r.Next(); !errors.Is(err, ogg.ErrTruncated) {
		t.Errorf("page cut short: %v, want ErrTruncated", err)
	}
}

// TestReaderBounded: a page claims at most MaxPageSize bytes however its
// segment table reads, and a stream that does not go on with a page is
// refused, positioned.
func TestReaderBounded(t *testing.T) {
	p := ogg.Page{Segments: bytes.Repeat([]byte{255}, 255), Body: make([]byte, 255*255)}
	b := ogg.Append(nil, &p)
	if len(b) != ogg.MaxPageSize {
		t.Errorf("largest page %d bytes, MaxPageSize %d", len(b), ogg.MaxPageSize)
	}
	r := ogg.NewReader(bytes.NewReader(append(b, "junk"...)))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err.Error() != `page 1: not an Ogg page (starts with "junk"), at byte 65307` {
		t.Errorf("junk after a page: %v", err)
	}
}
