package audio_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/audio/ogg"
)

// damage flips a byte of the n-th page of the Ogg file b (within its
// body) and returns the copy and the page's offset.
func damage(t *testing.T, b []byte, n int) ([]byte, int) {
	t.Helper()
	b = bytes.Clone(b)
	at := 0
	for i := 0; ; i++ {
		p, ok := ogg.Parse(b[at:])
		if !ok {
			t.Fatalf("the file has %d pages, not %d", i, n+1)
		}
		if i == n {
			b[at+p.Size()-1] ^= 0x55
			return b, at
		}
		at += p.Size()
	}
}

// TestOggDamagedPagesRefused: probing and measuring an Ogg Opus file
// check every page they read against its CRC, and say which page is
// damaged and where; before, both read damaged bytes as audio.
func TestOggDamagedPagesRefused(t *testing.T) {
	path := genFFmpeg(t, "a.ogg", 2, 48000, "-c:a", "libopus")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := damage(t, good, 0) // OpusHead: what probing reads first
	_, err = audio.ProbeReader(bytes.NewReader(first))
	if want := "damaged Ogg file: page 0: Ogg page CRC "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "the page is damaged, at byte 0") {
		t.Errorf("probing a damaged first page: %v, want %q...%q", err, want, "the page is damaged, at byte 0")
	}
	audioPage, at := damage(t, good, 3)
	_, err = loudness.MeasureLoudnessReader(context.Background(), bytes.NewReader(audioPage))
	if !errors.Is(err, ogg.ErrDamaged) || !strings.Contains(err.Error(), "page 3: ") || !strings.HasSuffix(err.Error(), "at byte "+strconv.Itoa(at)) {
		t.Errorf("measuring a damaged audio page: %v, want page 3 at byte %d damaged", err, at)
	}
}

// TestOggProbeIgnoresCaptureInPacket: a packet holding the bytes of a
// page ("OggS" and a header with a large granule position) near the end
// of a file is not taken for the last page: its CRC does not match.
// Before, the prober read the duration off it.
func TestOggProbeIgnoresCaptureInPacket(t *testing.T) {
	path := genFFmpeg(t, "a.ogg", 2, 48000, "-c:a", "libopus")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := audio.ProbeReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The last page's last packet: replace its bytes by a fake page of the
	// same stream, granule 48000 * 3600 (an hour), CRC left wrong.
	at := 0
	var last ogg.Page
	for {
		p, ok := ogg.Parse(b[at:])
		if !ok {
			break
		}
		if at+p.Size() == len(b) {
			last = p
			break
		}
		at += p.Size()
	}
	fake := ogg.Append(nil, &ogg.Page{Granule: 48000 * 3600, Serial: last.Serial, Segments: []byte{0}})
	fake[22] ^= 0xFF // a wrong CRC: bytes of a packet, not a page
	body := b[at+ogg.HeaderLen+len(last.Segments):]
	if len(body) < len(fake)+1 {
		t.Skipf("last page body of %d bytes", len(body))
	}
	copy(body[len(body)-len(fake):], fake)
	copy(b[at:], ogg.Append(nil, &last)) // the page itself stays whole: its CRC anew
	got, err := audio.ProbeReader(bytes.NewReader(b))
	if err != nil || got.Duration != want.Duration {
		t.Errorf("with a page's bytes in a packet: duration %v, %v; want %v", got.Duration, err, want.Duration)
	}
}
