package cache_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
)

// FuzzIndexSegment: any bytes a remote serves as an index segment go
// through the check every download and every read of a local copy use
// (cache.CheckSegment, the segmentCheck of fetchIndex and scanSegment),
// whatever pieces they arrive in: never a panic, the same answer for any
// piece size, an error wrapping ErrCorrupt for anything refused, and a
// segment accepted only when it is exactly the first line, a complete or
// partial line and fingerprints in strictly ascending order, no larger
// than the limit, with the SHA-256 of its name.
func FuzzIndexSegment(f *testing.F) {
	good, _ := segmentOf("complete", fps("seed", 3))
	f.Add(good, true, uint16(7))
	empty, _ := segmentOf("partial", nil)
	f.Add(empty, true, uint16(1))
	f.Add(good, false, uint16(32))
	sorted := slices.Sorted(slices.Values(fps("seed", 2)))
	for _, bad := range [][]byte{
		good[:len(good)-5],
		append(append([]byte{}, empty...), good[len(good)-32:]...),
		bytes.Replace(good, []byte("index 1"), []byte("index 2"), 1),
		bytes.Replace(good, []byte("complete"), []byte("completed"), 1),
		[]byte("voxform cache index 1\ncomplete"),
		[]byte("voxform cache"),
	} {
		f.Add(bad, true, uint16(3))
	}
	dup, _ := segmentOf("complete", nil)
	for _, k := range []string{sorted[1], sorted[0], sorted[0]} {
		d, _ := hex.DecodeString(k)
		dup = append(dup, d...)
	}
	f.Add(dup, true, uint16(5))
	f.Add(bytes.Repeat(good, 40), true, uint16(4096))
	f.Fuzz(func(t *testing.T, data []byte, named bool, step uint16) {
		const limit = 2048
		cache.SetIndexLimits(t, limit, 64)
		sum := sha256.Sum256(data)
		name := hex.EncodeToString(sum[:])
		if !named {
			name = fpOf(string(data))
		}
		complete, got, err := cache.CheckSegment(name, data, int(step))
		for _, s := range []int{1, len(data)} {
			c, g, e := cache.CheckSegment(name, data, s)
			if (e == nil) != (err == nil) || c != complete || !slices.Equal(g, got) && err == nil {
				t.Fatalf("in pieces of %d: %v %v %v; in pieces of %d: %v %v %v", s, c, len(g), e, step, complete, len(got), err)
			}
		}
		if err != nil {
			if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), name) {
				t.Fatalf("refused with %v; want an error wrapping ErrCorrupt naming the segment", err)
			}
			return
		}
		if !named {
			t.Fatal("accepted a segment not its name's")
		}
		if len(data) > limit {
			t.Fatalf("accepted %d bytes, over the limit of %d", len(data), limit)
		}
		mark := "partial\n"
		if complete {
			mark = "complete\n"
		}
		again := []byte("voxform cache index 1\n" + mark)
		for i, k := range got {
			if i > 0 && bytes.Compare(got[i-1][:], k[:]) >= 0 {
				t.Fatalf("fingerprint %d not after %d", i, i-1)
			}
			again = append(again, k[:]...)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("accepted %q, which reads as %q", data, again)
		}
	})
}
