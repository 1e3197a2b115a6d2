package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHashCacheFormat: the hash cache's binary form gives back what was
// saved; a cache of an earlier version (JSON) is read once and replaced;
// a file cut anywhere, or of another form, is an empty cache.
func TestHashCacheFormat(t *testing.T) {
	entries := map[string]cacheEntry{
		"build/a.wav":     {Size: 5, MtimeNS: 1_700_000_000_123_456_789, CtimeNS: 1_700_000_000_223_456_789, Inode: 1 << 40, SHA256: strings.Repeat("ab", 32), HashedNS: 1_700_000_001_000_000_000},
		"build/ü/b c.mp3": {Size: 0, MtimeNS: -1, SHA256: strings.Repeat("01", 32)},
		"कैश/प्रॉम्प्ट.wav": {Size: 1 << 33, SHA256: strings.Repeat("fe", 32)},
	}
	var b bytes.Buffer
	if err := encodeHashes(&b, entries); err != nil {
		t.Fatal(err)
	}
	got, err := decodeHashes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(entries, got); diff != "" {
		t.Errorf("round trip (-saved +read):\n%s", diff)
	}
	for i := len(hashesMagic); i < b.Len(); i++ { // a cut between entries is a smaller cache
		if got, err := decodeHashes(b.Bytes()[:i]); err == nil && len(got) >= len(entries) {
			t.Errorf("cut at %d of %d: read %d entries", i, b.Len(), len(got))
		}
	}
	if _, err := decodeHashes([]byte(`{"version":1,"entries":{}}`)); err == nil {
		t.Error("JSON taken for the binary form")
	}

	dir, _ := project(t)
	if err := os.Mkdir(filepath.Join(dir, CacheDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	legacy, _ := json.Marshal(cacheFile{Version: 1, Entries: entries})
	writeFile(t, filepath.Join(dir, CacheDirName, legacyHashCacheName), string(legacy))
	c := OpenHashCache(dir)
	if diff := cmp.Diff(entries, c.entries); diff != "" {
		t.Errorf("legacy cache read (-saved +read):\n%s", diff)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CacheDirName, legacyHashCacheName)); !os.IsNotExist(err) {
		t.Errorf("legacy cache kept after saving: %v", err)
	}
	if diff := cmp.Diff(entries, OpenHashCache(dir).entries); diff != "" {
		t.Errorf("saved cache read (-saved +read):\n%s", diff)
	}
}

// FuzzDecodeHashes: any bytes decode to entries or an error, never a
// panic, and what decodes encodes back to the same entries.
func FuzzDecodeHashes(f *testing.F) {
	var b bytes.Buffer
	encodeHashes(&b, map[string]cacheEntry{"a.wav": {Size: 5, SHA256: strings.Repeat("ab", 32)}})
	f.Add(b.Bytes())
	f.Add([]byte(hashesMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decodeHashes(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := encodeHashes(&out, entries); err != nil {
			t.Fatal(err)
		}
		again, err := decodeHashes(out.Bytes())
		if err != nil || !cmp.Equal(entries, again) {
			t.Errorf("re-encoded entries differ: %v", err)
		}
	})
}
