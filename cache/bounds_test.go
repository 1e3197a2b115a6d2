package cache_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/cache"
)

// spyRemote is a directory remote that counts what it hands out.
type spyRemote struct {
	cache.Remote
	dir string
	// indexBytes are the bytes of index segments the local cache took.
	indexBytes atomic.Int64
	blobGets   atomic.Int32
}

func newSpyRemote(t *testing.T) *spyRemote {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	return &spyRemote{Remote: r, dir: dir}
}

func (s *spyRemote) GetIndex(ctx context.Context, name string, w io.Writer) error {
	return s.Remote.GetIndex(ctx, name, countWriter{w, &s.indexBytes})
}

func (s *spyRemote) GetBlob(ctx context.Context, sha string, w io.Writer) error {
	s.blobGets.Add(1)
	return s.Remote.GetBlob(ctx, sha, w)
}

// put writes a file into the remote's storage, as a hostile writer may.
func (s *spyRemote) put(t *testing.T, key string, data []byte) {
	t.Helper()
	dirDoor(s.dir).put(t, key, data)
}

// countWriter counts the bytes w takes.
type countWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countWriter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// segmentOf is a segment of the mark ("complete", "partial") listing
// keys, sorted here, and its name.
func segmentOf(mark string, keys []string) ([]byte, string) {
	keys = slices.Sorted(slices.Values(keys))
	var b bytes.Buffer
	b.WriteString("voxform cache index 1\n" + mark + "\n")
	for _, k := range keys {
		d, _ := hex.DecodeString(k)
		b.Write(d)
	}
	s := sha256.Sum256(b.Bytes())
	return b.Bytes(), hex.EncodeToString(s[:])
}

// indexCopies are the local copies of remote index segments in l.
func indexCopies(t *testing.T, l *cache.Local) []string {
	t.Helper()
	copies, err := filepath.Glob(filepath.Join(l.Dir(), "v1", "index", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return copies
}

// TestIndexSegmentCheckedAsItStreams: a segment is checked as it is
// downloaded, so a malformed one (16 MiB after a wrong first line) is
// refused at its first bytes instead of being written whole to disk, and
// one whose content is not its name's is never kept. The lookup asks the
// remote and finds what it has.
func TestIndexSegmentCheckedAsItStreams(t *testing.T) {
	cache.SetIndexLimits(t, 32<<20, 64)
	r := newSpyRemote(t)
	present := fps("present", 3)
	for _, fp := range present {
		if err := r.PutEntry(t.Context(), entryOf(fp)); err != nil {
			t.Fatal(err)
		}
	}
	bad := append([]byte("not an index\n"), make([]byte, 16<<20)...)
	s := sha256.Sum256(bad)
	r.put(t, "v1/index/"+hex.EncodeToString(s[:]), bad)
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	wantHas(t, c, present, fps("absent", 3))
	if n := r.indexBytes.Load(); n > 1<<20 {
		t.Errorf("the local cache took %d bytes of a segment malformed from its first line", n)
	}
	if copies := indexCopies(t, c.Local); len(copies) != 0 {
		t.Errorf("a malformed segment was kept: %v", copies)
	}

	// Well formed, not its name's: downloaded, checked, not kept.
	if err := r.DeleteIndex(t.Context(), hex.EncodeToString(s[:])); err != nil {
		t.Fatal(err)
	}
	data, _ := segmentOf("complete", nil)
	other := fpOf("not the content's")
	r.put(t, "v1/index/"+other, data)
	err := c.FetchIndex(t.Context())
	if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), "does not match its name") {
		t.Errorf("fetch of a segment not its name's: %v", err)
	}
	if copies := indexCopies(t, c.Local); len(copies) != 0 {
		t.Errorf("a segment not its name's was kept: %v", copies)
	}
	wantHas(t, c, present, fps("absent", 3))
}

// TestIndexTotalBounded: the segments of one remote are downloaded and
// kept up to maxIndexTotal bytes together, the error naming the limit:
// a remote listing many well-formed segments cannot fill the disk. A
// lookup then asks the remote, and finds what it has.
func TestIndexTotalBounded(t *testing.T) {
	const total = 256 << 10
	cache.SetIndexTotal(t, total)
	r := newSpyRemote(t)
	present := fps("present", 3)
	for _, fp := range present {
		if err := r.PutEntry(t.Context(), entryOf(fp)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 64 { // 64 segments of 64 KiB: 4 MiB
		data, name := segmentOf("complete", fps(fmt.Sprintf("junk %d", i), 2048))
		r.put(t, "v1/index/"+name, data)
	}
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	err := c.FetchIndex(t.Context())
	if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("limit of %d bytes in all", total)) {
		t.Errorf("fetch of a 4 MiB index: %v; want the limit of %d bytes named", err, total)
	}
	if n := r.indexBytes.Load(); n > total {
		t.Errorf("the local cache took %d bytes of the index, over the limit of %d", n, total)
	}
	var kept int64
	for _, p := range indexCopies(t, c.Local) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		kept += st.Size()
	}
	if kept > total {
		t.Errorf("%d bytes of index kept, over the limit of %d", kept, total)
	}
	before := r.indexBytes.Load()
	wantHas(t, c, present, fps("absent", 3))
	if n := r.indexBytes.Load() - before; n > total-kept {
		t.Errorf("a lookup took %d more bytes of the index, over what is left of the limit (%d)", n, total-kept)
	}
}

// TestGCPrunesIndexCopies: cache gc removes the local copies of index
// segments that do not check, and those older than -older-than (every
// one with 0); a good recent copy stays.
func TestGCPrunesIndexCopies(t *testing.T) {
	r := newSpyRemote(t)
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	putAll(t, c, fps("pushed", 2))
	b := &cache.Cache{Local: openLocal(t), Remote: r}
	wantHas(t, b, fps("pushed", 2), nil)
	good := indexCopies(t, b.Local)
	if len(good) == 0 {
		t.Fatal("no local copy of the index")
	}
	dir := filepath.Dir(good[0])
	badData, _ := segmentOf("complete", nil)
	oldData, oldName := segmentOf("partial", fps("old", 1))
	bad, old := filepath.Join(dir, fpOf("not its name")), filepath.Join(dir, oldName)
	for p, data := range map[string][]byte{bad: badData, old: oldData} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-90 * 24 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}

	rep, err := b.Local.GC(cache.GCOptions{OlderThan: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{bad, old} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("gc kept %s", filepath.Base(p))
		}
	}
	for _, p := range good {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("gc removed a good recent copy: %v", err)
		}
	}
	if rep.Segments != 2 {
		t.Errorf("gc report: %+v; want 2 segments", rep)
	}
	if rep, err = b.Local.GC(cache.GCOptions{}); err != nil || rep.Segments != len(good) || len(indexCopies(t, b.Local)) != 0 {
		t.Errorf("gc -older-than 0: %+v, %v, %v left; want every copy removed", rep, err, indexCopies(t, b.Local))
	}
	wantHas(t, b, fps("pushed", 2), fps("absent", 2)) // downloaded again
}

// TestEntryDeclaredSizeBounded: a remote entry whose files declare more
// than MaxEntryContent bytes is not downloaded (a blob is checked once
// whole, so its declared size is what bounds the disk it takes): the
// fetch fails naming the limit, before any blob is asked for. An entry
// that large is not pushed either.
func TestEntryDeclaredSizeBounded(t *testing.T) {
	r := newSpyRemote(t)
	ctx := t.Context()
	fp := fpOf("huge")
	e := entryOf(fp, "content")
	r.put(t, "v1/blobs/"+e.Files[0].SHA256[:2]+"/"+e.Files[0].SHA256, make([]byte, 1<<20)) // not the content
	e.Files[0].Size = cache.MaxEntryContent + 1
	if err := r.PutEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	_, err := c.Fetch(ctx, fp)
	limit := fmt.Sprintf("limit of %d bytes", int64(cache.MaxEntryContent))
	if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), limit) {
		t.Errorf("fetch of an entry declaring %d bytes: %v; want the %s named", e.Files[0].Size, err, limit)
	}
	if n := r.blobGets.Load(); n != 0 {
		t.Errorf("%d blobs asked for", n)
	}
	if err := c.PushEntry(ctx, e); err == nil || !strings.Contains(err.Error(), limit) {
		t.Errorf("push of an entry declaring %d bytes: %v; want the %s named", e.Files[0].Size, err, limit)
	}
}
