package cache_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/internal/miniotest"
)

// requests counts the requests an S3 server is sent, by kind: LIST, HEAD,
// GET, PUT, DELETE, each with " index" when it is about the index.
type requests struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *requests) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// countingProxy serves a reverse proxy to the S3 server at endpoint that
// counts what it forwards, and returns its address. The Host header goes
// through unchanged, so that the client's signatures hold.
func countingProxy(t *testing.T, endpoint string) (string, *requests) {
	t.Helper()
	c := &requests{n: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: endpoint})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := r.Method
		if r.Method == http.MethodGet && r.URL.Query().Has("list-type") {
			kind = "LIST"
		}
		if strings.Contains(r.URL.Path, "/v1/index/") || strings.Contains(r.URL.Query().Get("prefix"), "/v1/index/") {
			kind += " index"
		}
		c.mu.Lock()
		c.n[kind]++
		c.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), c
}

// keyIn is the i-th key of a made-up shard: the shard's two digits, then
// i in 62 hexadecimal digits, so that keys sort as i does.
func keyIn(shard string, i int) string { return fmt.Sprintf("%s%062x", shard, i) }

// countingRemote is an S3 remote on MinIO behind a counting proxy.
func countingRemote(t *testing.T) (cache.Remote, *requests) {
	t.Helper()
	srv := miniotest.Start(t)
	s3Env(t, srv.AccessKey, srv.SecretKey)
	addr, counts := countingProxy(t, srv.Endpoint)
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: srv.URL(srv.Bucket(t), "team/cache"), Endpoint: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	return r, counts
}

// TestLookupsList: the S3 remote answers many lookups in a shard with
// LIST requests, page after page, and asks by HEAD for the keys of a
// shard looked up less than listMin times, and for the rest of a shard
// whose listing answers too few of its keys for the keys it goes through.
func TestLookupsList(t *testing.T) {
	r, counts := countingRemote(t)
	ctx := t.Context()
	present := map[string]bool{}
	put := func(key string) {
		if err := r.PutEntry(ctx, entryOf(key)); err != nil {
			t.Fatal(err)
		}
		present[key] = true
	}
	var dense, sparse []string
	for i := range 40 { // shard ab: 40 lookups, every other one there
		if i%2 == 0 {
			put(keyIn("ab", i))
		}
		dense = append(dense, keyIn("ab", i))
	}
	for i := range 60 { // shard cd: 60 entries, 5 lookups far apart, none there
		put(keyIn("cd", 2*i))
	}
	for i := range 5 {
		sparse = append(sparse, keyIn("cd", 24*i+1))
	}
	put(keyIn("ef", 1)) // shard ef: 2 lookups
	few := []string{keyIn("ef", 1), keyIn("ef", 2)}
	for _, tc := range []struct {
		name               string
		minKeys, ratio, pg int
		lookups            []string
		lists, heads       int
	}{
		// One page answers the 40 lookups of ab.
		{"dense", 4, 4, 1000, dense, 1, 0},
		// Pages of 8 (20 entries from the first key): 3 of them.
		{"dense, pages", 4, 4, 8, dense, 3, 0},
		// The first page of cd (20 keys: 4 for each of the 5 lookups)
		// answers 2 of them: the 3 others are asked by HEAD.
		{"sparse", 4, 4, 20, sparse, 1, 3},
		// Fewer than listMin lookups: HEAD each.
		{"few", 4, 4, 1000, few, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache.SetListing(t, tc.minKeys, tc.ratio, tc.pg)
			counts.take()
			got, err := r.HasEntries(ctx, tc.lookups)
			if err != nil {
				t.Fatal(err)
			}
			wantHere := map[string]bool{}
			for _, k := range tc.lookups {
				wantHere[k] = present[k]
			}
			if diff := cmp.Diff(wantHere, got); diff != "" {
				t.Errorf("HasEntries (-want +got):\n%s", diff)
			}
			n := counts.take()
			if n["LIST"] != tc.lists || n["HEAD"] != tc.heads || n["GET"] != 0 {
				t.Errorf("requests %v, want %d LIST and %d HEAD", n, tc.lists, tc.heads)
			}
		})
	}
	t.Run("blobs", func(t *testing.T) {
		var shas []string
		for i := range 6 {
			data := []byte(fmt.Sprintf("blob %d", i))
			if i < 3 {
				if err := r.PutBlob(ctx, sum(data), int64(len(data)), bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
			}
			shas = append(shas, sum(data))
		}
		cache.SetListing(t, 1, 4, 1000) // every shard listed
		counts.take()
		got, err := r.HasBlobs(ctx, shas)
		if err != nil {
			t.Fatal(err)
		}
		for i, sha := range shas {
			if got[sha] != (i < 3) {
				t.Errorf("HasBlobs: blob %d: %v, want %v", i, got[sha], i < 3)
			}
		}
		shards := map[string]bool{}
		for _, sha := range shas {
			shards[sha[:2]] = true
		}
		if n := counts.take(); n["LIST"] != len(shards) || n["HEAD"] != 0 {
			t.Errorf("requests %v, want a LIST for each of the %d shards", n, len(shards))
		}
	})
}

// TestPushAsksOnlyOfLargeBlobs: PushEntry uploads a small blob without a
// HEAD request first (asking costs as much as uploading it again), and
// asks before uploading a blob of headMin bytes or more, which it then
// does not upload again.
func TestPushAsksOnlyOfLargeBlobs(t *testing.T) {
	r, counts := countingRemote(t)
	ctx := t.Context()
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	small := store(t, c.Local, "small", map[string]string{"audio": "hello"})
	large := store(t, c.Local, "large", map[string]string{"audio": string(bytes.Repeat([]byte("0123456789"), cache.HeadMin/10+1))})
	for _, tc := range []struct {
		name  string
		e     *cache.Entry
		heads int
		puts  int // the blob's and the entry's
	}{
		{"small", small, 0, 2},
		{"small again", small, 0, 2},
		{"large", large, 1, 2},
		{"large again", large, 1, 1},
	} {
		counts.take()
		if err := c.PushEntry(ctx, tc.e); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := counts.take(); n["HEAD"] != tc.heads || n["PUT"] != tc.puts {
			t.Errorf("%s: requests %v, want %d HEAD and %d PUT", tc.name, n, tc.heads, tc.puts)
		}
	}
	has, err := r.HasEntries(ctx, []string{small.Fingerprint, large.Fingerprint})
	if err != nil || !has[small.Fingerprint] || !has[large.Fingerprint] {
		t.Errorf("HasEntries after the pushes = %v, %v", has, err)
	}
}

// TestListingStart: a listing for a key starts after the object of every
// lower key and before the key's own, whatever its last digit.
func TestListingStart(t *testing.T) {
	const digits = "0123456789abcdef"
	for _, kind := range []string{"entries", "blobs"} {
		name := func(k string) string {
			if kind == "entries" {
				return k + ".json"
			}
			return k
		}
		for _, last := range "019af" {
			key := keyIn("ab", 0)[:63] + string(last)
			start := cache.Before(kind, key)
			if start >= name(key) {
				t.Errorf("%s %c: start %q is not before %q", kind, last, start, name(key))
			}
			for _, d := range digits[:strings.IndexRune(digits, last)] {
				if lower := name(key[:63] + string(d)); lower > start {
					t.Errorf("%s %c: start %q is before the lower %q", kind, last, start, lower)
				}
			}
		}
	}
}
