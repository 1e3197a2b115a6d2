package loudness

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// oggPageBytes builds an Ogg page of serial with the given lacing values
// and body (no CRC: the reader does not check it).
func oggPageBytes(flags byte, granule int64, serial uint32, lacing []byte, body []byte) []byte {
	b := []byte("OggS\x00")
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(granule))
	b = binary.LittleEndian.AppendUint32(b, serial)
	b = append(b, make([]byte, 8)...) // sequence number, CRC
	b = append(b, byte(len(lacing)))
	b = append(b, lacing...)
	return append(b, body...)
}

// TestOggReaderPackets checks packet assembly: several packets on a page,
// a packet continued across pages (lacing 255 at the end of a page), a
// zero-length packet, and a page of another logical stream skipped.
func TestOggReaderPackets(t *testing.T) {
	long := bytes.Repeat([]byte("L"), 600) // 255 + 255 + 90
	var f []byte
	f = append(f, oggPageBytes(oggFlagBOS, 0, 7, []byte{3, 2}, []byte("abcde"))...)
	f = append(f, oggPageBytes(oggFlagBOS, 0, 9, []byte{4}, []byte("XXXX"))...)
	f = append(f, oggPageBytes(0, -1, 7, []byte{1, 255}, append([]byte("f"), long[:255]...))...)
	f = append(f, oggPageBytes(oggFlagContinue, 100, 7, []byte{255, 90, 0}, long[255:])...)
	f = append(f, oggPageBytes(oggFlagEOS, 200, 7, []byte{2}, []byte("gh"))...)
	o := &oggReader{r: bufioReader(f)}
	var got []string
	var granules []int64
	for {
		p, err := o.packet()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(p))
		granules = append(granules, o.granule)
	}
	want := []string{"abc", "de", "f", string(long), "", "gh"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 0, -1, 100, 100, 200}, granules); diff != "" {
		t.Errorf("granules (-want +got):\n%s", diff)
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
