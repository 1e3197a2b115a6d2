package mute_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/voxform/voxform/audio/internal/audiotest"
	"github.com/voxform/voxform/audio/mute"
)

// Whatever the input, Mute never panics, writes nothing when it refuses
// the source, and otherwise writes as many bytes as it read.
func FuzzMute(f *testing.F) {
	audiotest.WAVSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, mode := range []mute.Mode{mute.Silence, mute.Beep} {
			var out bytes.Buffer
			rs := []mute.Range{{From: 0, To: time.Microsecond}, {From: time.Millisecond, To: time.Hour}}
			err := mute.Mute(&out, bytes.NewReader(b), rs, mode)
			switch {
			case err != nil && (!errors.Is(err, mute.ErrUnsupported) || out.Len() != 0):
				t.Fatalf("%v with %d bytes written", err, out.Len())
			case err == nil && out.Len() != len(b):
				t.Fatalf("%d bytes in, %d out", len(b), out.Len())
			}
		}
	})
}
