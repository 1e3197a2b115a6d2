package mp3

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecoder feeds arbitrary bytes to the decoder: it must end with
// io.EOF or an error, never panic or loop, and every frame it returns
// must hold one frame's samples.
func FuzzDecoder(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.mp3")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xFF, 0xE3, 0x18, 0xC4})
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := NewDecoder(bytes.NewReader(in))
		if err != nil {
			return
		}
		// A frame has at least a 4-byte header, so a stream cannot yield
		// more frames than it has bytes.
		for frames := 0; ; frames++ {
			pcm, err := d.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && d.err == nil {
					t.Fatalf("error %v not kept", err)
				}
				return
			}
			if frames > len(in) {
				t.Fatalf("%d frames from %d bytes", frames, len(in))
			}
			if n := len(pcm); n != 576*d.Channels() && n != 1152*d.Channels() {
				t.Fatalf("frame of %d samples", n)
			}
		}
	})
}
