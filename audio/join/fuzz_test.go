package join

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// ffmpegSeed encodes a short sine with ffmpeg, for a fuzz seed; it fails
// when ffmpeg is missing, never skips.
func ffmpegSeed(f *testing.F, name string, args ...string) []byte {
	f.Helper()
	path := filepath.Join(f.TempDir(), name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "lavfi", "-i", "sine=frequency=300:sample_rate=24000:duration=0.15"}, args...), path)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		f.Fatalf("ffmpeg is required for this fuzz seed (scripts/deps.sh installs it): %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// split cuts in at cut into two pieces.
func split(in []byte, cut uint16) [][]byte {
	c := min(int(cut), len(in))
	return [][]byte{in[:c], in[c:]}
}

// FuzzMP3Joiner: any pieces join without a panic, and what joins is
// frames back to back, every one of the first's stream.
func FuzzMP3Joiner(f *testing.F) {
	seed := ffmpegSeed(f, "s.mp3", "-c:a", "libmp3lame", "-b:a", "32k")
	f.Add(append(bytes.Clone(seed), seed...), uint16(len(seed)))
	f.Add(append([]byte("ID3\x04\x00\x00\x00\x00\x00\x02xxTAG"), seed...), uint16(3))
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		var out bytes.Buffer
		j := NewMP3Joiner(&out)
		for _, p := range split(in, cut) {
			if j.Append(bytes.NewReader(p)) != nil {
				return
			}
		}
		if j.Close() != nil {
			return
		}
		b := out.Bytes()
		first, ok := mp3.ParseHeader(b)
		for at := 0; at < len(b); {
			h, ok2 := mp3.ParseHeader(b[at:])
			if !ok || !ok2 || h.SampleRate != first.SampleRate || h.Channels != first.Channels || at+h.Length > len(b) {
				t.Fatalf("joined: no frame of the stream at byte %d of %d", at, len(b))
			}
			at += h.Length
		}
	})
}

// fixCRCs sets the CRC of every whole Ogg page of b, so that fuzzing
// reaches past the CRC check.
func fixCRCs(b []byte) {
	for at := 0; at+oggHeaderLen <= len(b); at++ {
		p, ok := parseOggPage(b[at:])
		if !ok || p.body == nil {
			continue
		}
		page := b[at : at+p.size]
		binary.LittleEndian.PutUint32(page[22:26], 0)
		binary.LittleEndian.PutUint32(page[22:26], oggCRC(page))
	}
}

// FuzzOpusJoiner: any pieces join without a panic, and what joins is one
// logical stream: pages with good CRCs, one serial, sequence numbers from
// 0, BOS on the first page only, EOS on the last only.
func FuzzOpusJoiner(f *testing.F) {
	seed := ffmpegSeed(f, "s.ogg", "-c:a", "libopus")
	f.Add(append(bytes.Clone(seed), seed...), uint16(len(seed)))
	f.Add(append(bytes.Clone(seed), seed...), uint16(len(seed)-40))
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		in = bytes.Clone(in)
		fixCRCs(in)
		var out bytes.Buffer
		j := NewOpusJoiner(&out)
		for _, p := range split(in, cut) {
			if j.Append(bytes.NewReader(p)) != nil {
				return
			}
		}
		if j.Close() != nil {
			return
		}
		rd := bufio.NewReader(bytes.NewReader(out.Bytes()))
		var serial uint32
		for seq := uint32(0); ; seq++ {
			page, err := readPage(rd)
			if errors.Is(err, io.EOF) && seq > 0 {
				break
			}
			if err != nil {
				t.Fatalf("joined page %d: %v", seq, err)
			}
			flags, s := page[5], binary.LittleEndian.Uint32(page[14:18])
			if seq == 0 {
				serial = s
			}
			_, more := rd.Peek(1)
			last := more != nil
			if s != serial || binary.LittleEndian.Uint32(page[18:22]) != seq || (flags&oggBOS != 0) != (seq == 0) || (flags&oggEOS != 0) != last {
				t.Fatalf("joined page %d: serial %08x (first %08x), flags %02x", seq, s, serial, flags)
			}
		}
	})
}
