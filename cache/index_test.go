package cache_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
)

// fps is n made-up fingerprints named prefix.
func fps(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fpOf(fmt.Sprintf("%s %d", prefix, i))
	}
	return out
}

// putAll pushes an entry of one small file for each of fps through c.
func putAll(t *testing.T, c *cache.Cache, fps []string) {
	t.Helper()
	for _, fp := range fps {
		e, paths := outputs(t, fp, "synthesis", map[string]string{"audio": "audio of " + fp})
		if err := c.Local.Store(e, paths); err != nil {
			t.Fatal(err)
		}
		if err := c.PushEntry(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// wantHas checks RemoteHas of c: every one of present, none of absent.
func wantHas(t *testing.T, c *cache.Cache, present, absent []string) {
	t.Helper()
	has, err := c.RemoteHas(t.Context(), append(slices.Clone(present), absent...))
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range present {
		if !has[fp] {
			t.Errorf("RemoteHas(%s) = false, want true", fp[:12])
		}
	}
	for _, fp := range absent {
		if has[fp] {
			t.Errorf("RemoteHas(%s) = true, want false", fp[:12])
		}
	}
}

// TestIndexAnswersNo: once a remote's index is complete, a lookup asks the
// remote only about the fingerprints its index lists: a plan of new
// texts costs one LIST request of the index, whatever their number, and
// a segment once read is not downloaded again.
func TestIndexAnswersNo(t *testing.T) {
	r, counts := countingRemote(t)
	ctx := t.Context()
	a := &cache.Cache{Local: openLocal(t), Remote: r}
	present, absent := fps("present", 40), fps("absent", 2000)
	if err := a.Announce(ctx, present); err != nil {
		t.Fatal(err)
	}
	putAll(t, a, present)

	b := &cache.Cache{Local: openLocal(t), Remote: r} // another machine
	counts.take()
	wantHas(t, b, nil, absent)
	if n := counts.take(); !maps(n, map[string]int{"LIST index": 1, "GET index": 1}) {
		t.Errorf("first lookup of %d absent fingerprints: requests %v; want one LIST and one GET of the index", len(absent), n)
	}
	wantHas(t, b, nil, absent)
	if n := counts.take(); !maps(n, map[string]int{"LIST index": 1}) {
		t.Errorf("second lookup of %d absent fingerprints: requests %v; want one LIST of the index", len(absent), n)
	}
	wantHas(t, b, present, absent)
	n := counts.take()
	if n["LIST index"] != 1 || n["HEAD"]+n["LIST"] == 0 || n["HEAD"]+n["LIST"] > len(present) {
		t.Errorf("lookup of %d present and %d absent fingerprints: requests %v; want the present ones only asked about", len(present), len(absent), n)
	}
}

// maps reports whether got counts exactly want.
func maps(got, want map[string]int) bool {
	for k, v := range got {
		if want[k] != v {
			return false
		}
	}
	return len(got) == len(want)
}

// TestIndexOfARemoteWithout: entries a remote holds without an index (put
// by hand, or before the index) are found by asking, and the first
// writer indexes them all, so that they are still found when the index
// answers.
func TestIndexOfARemoteWithout(t *testing.T) {
	for _, kind := range remoteKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			r, door := kind.open(t)
			ctx := t.Context()
			old, later, absent := fps("old", 30), fps("later", 3), fps("absent", 30)
			for _, fp := range old {
				if err := r.PutEntry(ctx, entryOf(fp)); err != nil {
					t.Fatal(err)
				}
			}
			a := &cache.Cache{Local: openLocal(t), Remote: r}
			wantHas(t, a, old, absent)
			putAll(t, a, later)
			segments := 0
			for _, k := range door.keys(t) {
				if strings.HasPrefix(k, "v1/index/") {
					segments++
				}
			}
			if segments != len(later) {
				t.Errorf("%d segments after %d pushes of one entry each, want one each", segments, len(later))
			}
			b := &cache.Cache{Local: openLocal(t), Remote: r}
			wantHas(t, b, append(old, later...), absent)
		})
	}
}

// TestIndexMerged: a writer that finds more segments than indexMerge
// merges them into one, and deletes them; every fingerprint is still
// found, and a reader holding the old segments reads the new one.
func TestIndexMerged(t *testing.T) {
	cache.SetIndexLimits(t, 64<<20, 8)
	for _, kind := range remoteKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			r, _ := kind.open(t)
			ctx := t.Context()
			a := &cache.Cache{Local: openLocal(t), Remote: r}
			b := &cache.Cache{Local: openLocal(t), Remote: r}
			all := fps("merged", 20)
			for i, fp := range all {
				putAll(t, a, []string{fp})
				if i == 5 {
					wantHas(t, b, all[:6], all[6:]) // b keeps these segments
				}
			}
			names, err := r.ListIndex(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(names) > 9 {
				t.Errorf("%d segments after %d announcements: not merged", len(names), len(all))
			}
			wantHas(t, b, all, fps("absent", 5))
			c := &cache.Cache{Local: openLocal(t), Remote: r}
			wantHas(t, c, all, fps("absent", 5))
		})
	}
}

// TestIndexNotTrusted: a segment that does not check (its content not
// its name's, out of order, cut short, too large, another format) in the
// remote or in the local copy is never taken for an answer: the lookup
// asks the remote, and finds every entry, where the segment would have
// said the index was complete and listed none of them.
func TestIndexNotTrusted(t *testing.T) {
	remote := remoteKinds(t)[0] // the checks are the remote's kind's own
	segment := func(mark string, keys ...string) []byte {
		var b bytes.Buffer
		b.WriteString("voxform cache index 1\n" + mark + "\n")
		for _, k := range keys {
			d, _ := hex.DecodeString(k)
			b.Write(d)
		}
		return b.Bytes()
	}
	name := func(data []byte) string { s := sha256.Sum256(data); return hex.EncodeToString(s[:]) }
	present := fps("present", 4)
	absent := fps("absent", 4)
	sorted := slices.Sorted(slices.Values(present))
	for _, tc := range []struct {
		name string
		data []byte
		as   string // its name; "" the SHA-256 of data
	}{
		{"not its name", segment("complete"), fpOf("other")},
		{"out of order", segment("complete", sorted[1], sorted[0]), ""},
		{"duplicate", segment("complete", sorted[0], sorted[0]), ""},
		{"cut short", segment("complete")[:10], ""},
		{"a fingerprint cut short", append(segment("complete"), 1, 2, 3), ""},
		{"another version", bytes.Replace(segment("complete"), []byte("index 1"), []byte("index 2"), 1), ""},
		{"no mark", segment("whatever"), ""},
		{"too large", segment("complete", fps("many", 40)...), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache.SetIndexLimits(t, 1024, 64)
			r, door := remote.open(t)
			ctx := t.Context()
			for _, fp := range present { // entries no segment lists
				if err := r.PutEntry(ctx, entryOf(fp)); err != nil {
					t.Fatal(err)
				}
			}
			as := tc.as
			if as == "" {
				as = name(tc.data)
			}
			door.put(t, "v1/index/"+as, tc.data) // claims completeness, lists none
			b := &cache.Cache{Local: openLocal(t), Remote: r}
			wantHas(t, b, present, absent)
			wantHas(t, b, present, absent)
		})
	}
	t.Run("local copy", func(t *testing.T) {
		r, _ := remote.open(t)
		a := &cache.Cache{Local: openLocal(t), Remote: r}
		putAll(t, a, present)
		b := &cache.Cache{Local: openLocal(t), Remote: r}
		wantHas(t, b, present, absent)
		copies, _ := filepath.Glob(filepath.Join(b.Local.Dir(), "v1", "index", "*", "*"))
		if len(copies) == 0 {
			t.Fatal("no local copy of the index")
		}
		for _, p := range copies {
			os.WriteFile(p, segment("complete"), 0o600) // lists nothing
		}
		wantHas(t, b, present, absent)
		wantHas(t, b, present, absent)
	})
}

// TestIndexSegmentsConform: every remote stores, lists, reads and deletes
// segments alike, refuses content that is not its name's, and lists only
// names of 64 hexadecimal digits.
func TestIndexSegmentsConform(t *testing.T) {
	for _, kind := range remoteKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			r, door := kind.open(t)
			ctx := t.Context()
			data := []byte("voxform cache index 1\npartial\n")
			s := sha256.Sum256(data)
			name := hex.EncodeToString(s[:])
			if err := r.PutIndex(ctx, name, int64(len(data)), bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			other := fpOf("other")
			if err := r.PutIndex(ctx, other, int64(len(data)), bytes.NewReader(data)); err == nil {
				t.Error("PutIndex of content not its name's succeeded")
			}
			door.put(t, "v1/index/not-a-segment", data)
			names, err := r.ListIndex(ctx)
			if err != nil || !slices.Equal(names, []string{name}) {
				t.Errorf("ListIndex = %v, %v; want [%s]", names, err, name)
			}
			var got bytes.Buffer
			if err := r.GetIndex(ctx, name, &got); err != nil || !bytes.Equal(got.Bytes(), data) {
				t.Errorf("GetIndex = %q, %v", got.Bytes(), err)
			}
			if err := r.GetIndex(ctx, other, &got); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("GetIndex of a missing segment = %v, want fs.ErrNotExist", err)
			}
			for _, bad := range []string{"../x", "", strings.ToUpper(name), "not-a-segment"} {
				if err := r.GetIndex(ctx, bad, &got); err == nil {
					t.Errorf("GetIndex(%q) succeeded", bad)
				}
				if err := r.DeleteIndex(ctx, bad); err == nil {
					t.Errorf("DeleteIndex(%q) succeeded", bad)
				}
			}
			if err := r.DeleteIndex(ctx, name); err != nil {
				t.Fatal(err)
			}
			if err := r.DeleteIndex(ctx, name); err != nil {
				t.Errorf("DeleteIndex of an absent segment: %v", err)
			}
			if names, err := r.ListIndex(ctx); err != nil || len(names) != 0 {
				t.Errorf("ListIndex after DeleteIndex = %v, %v", names, err)
			}
		})
	}
}
