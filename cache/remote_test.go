package cache_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/minio/minio-go/v7"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/internal/miniotest"
)

// remoteKind is one implementation of Remote under the conformance table,
// with a back door to its storage for the tests to tamper with.
type remoteKind struct {
	name string
	// open makes a new empty remote.
	open func(t *testing.T) (cache.Remote, backdoor)
}

// backdoor reads and writes a remote's storage by key, bypassing Remote.
type backdoor interface {
	put(t *testing.T, key string, data []byte)
	keys(t *testing.T) []string // every stored key, temporary files too
}

type dirDoor string

func (d dirDoor) put(t *testing.T, key string, data []byte) {
	p := filepath.Join(string(d), filepath.FromSlash(key))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (d dirDoor) keys(t *testing.T) []string { return files(t, string(d)) }

type s3Door struct {
	client         *minio.Client
	bucket, prefix string
}

func (d s3Door) put(t *testing.T, key string, data []byte) {
	_, err := d.client.PutObject(context.Background(), d.bucket, d.prefix+"/"+key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func (d s3Door) keys(t *testing.T) []string {
	var out []string
	for obj := range d.client.ListObjects(context.Background(), d.bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		out = append(out, strings.TrimPrefix(obj.Key, d.prefix+"/"))
	}
	return out
}

// s3Env points the AWS credential chain at srv for the test.
func s3Env(t *testing.T, accessKey, secretKey string) {
	t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
}

// remoteKinds are the remotes under test: a directory, and S3 on a real
// MinIO server (started once for the caller).
func remoteKinds(t *testing.T) []remoteKind {
	srv := miniotest.Start(t)
	s3Env(t, srv.AccessKey, srv.SecretKey)
	return []remoteKind{
		{"dir", func(t *testing.T) (cache.Remote, backdoor) {
			dir := filepath.Join(t.TempDir(), "remote")
			os.Mkdir(dir, 0o755)
			r, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + dir})
			if err != nil {
				t.Fatal(err)
			}
			return r, dirDoor(dir)
		}},
		{"s3", func(t *testing.T) (cache.Remote, backdoor) {
			bucket := srv.Bucket(t)
			r, err := cache.OpenRemote(cache.RemoteConfig{URL: srv.URL(bucket, "team/cache"), Endpoint: "http://" + srv.Endpoint})
			if err != nil {
				t.Fatal(err)
			}
			return r, s3Door{srv.Client(), bucket, "team/cache"}
		}},
	}
}

func TestRemoteConformance(t *testing.T) {
	for _, kind := range remoteKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			for _, tc := range conformance {
				t.Run(tc.name, func(t *testing.T) {
					r, door := kind.open(t)
					if err := r.Check(t.Context()); err != nil {
						t.Fatalf("Check: %v", err)
					}
					tc.run(t, r, door)
				})
			}
		})
	}
}

// entryOf is an entry of fp with a file of each content, not stored.
func entryOf(fp string, contents ...string) *cache.Entry {
	e := &cache.Entry{Version: 1, Fingerprint: fp, Kind: "transcription", CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i, c := range contents {
		e.Files = append(e.Files, cache.File{Role: []string{"json", "txt", "srt", "vtt"}[i], SHA256: sum([]byte(c)), Size: int64(len(c))})
	}
	return e
}

var conformance = []struct {
	name string
	run  func(t *testing.T, r cache.Remote, door backdoor)
}{
	{"entries", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		a, b, absent := fpOf("a"), fpOf("b"), fpOf("absent")
		for _, fp := range []string{a, b} {
			if err := r.PutEntry(ctx, entryOf(fp, "x")); err != nil {
				t.Fatal(err)
			}
		}
		has, err := r.HasEntries(ctx, []string{a, absent, b, a})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]bool{a: true, b: true, absent: false}, has); diff != "" {
			t.Errorf("HasEntries (-want +got):\n%s", diff)
		}
		got, err := r.Entry(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(entryOf(a, "x"), got); diff != "" {
			t.Errorf("Entry (-put +got):\n%s", diff)
		}
		if got, err := r.Entry(ctx, absent); got != nil || err != nil {
			t.Errorf("Entry of an absent fingerprint = %v, %v; want nil, nil", got, err)
		}
		listed := map[string]time.Time{}
		err = r.ListEntries(ctx, func(fp string, mod time.Time) error { listed[fp] = mod; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(listed) != 2 || listed[a].IsZero() || listed[b].IsZero() || time.Since(listed[a]) > time.Hour {
			t.Errorf("ListEntries = %v, want a and b, just written", listed)
		}
		stop := errors.New("stop")
		calls := 0
		if err := r.ListEntries(ctx, func(string, time.Time) error { calls++; return stop }); err != stop || calls != 1 {
			t.Errorf("ListEntries with fn failing = %v after %d calls; want fn's error after 1", err, calls)
		}
		if err := r.DeleteEntry(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := r.DeleteEntry(ctx, absent); err != nil {
			t.Errorf("DeleteEntry of an absent entry: %v", err)
		}
		has, err = r.HasEntries(ctx, []string{a, b})
		if err != nil || has[a] || !has[b] {
			t.Errorf("HasEntries after DeleteEntry = %v, %v", has, err)
		}
	}},
	{"blobs", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		content := bytes.Repeat([]byte("0123456789"), 100_000)
		sha, absent := sum(content), sum([]byte("absent"))
		if err := r.PutBlob(ctx, sha, int64(len(content)), bytes.NewReader(content)); err != nil {
			t.Fatal(err)
		}
		has, err := r.HasBlobs(ctx, []string{sha, absent})
		if err != nil || !has[sha] || has[absent] {
			t.Errorf("HasBlobs = %v, %v", has, err)
		}
		var got bytes.Buffer
		if err := r.GetBlob(ctx, sha, &got); err != nil || !bytes.Equal(got.Bytes(), content) {
			t.Errorf("GetBlob = %d bytes, %v; want the %d put", got.Len(), err, len(content))
		}
		if err := r.GetBlob(ctx, absent, io.Discard); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), r.String()) {
			t.Errorf("GetBlob of an absent blob = %v, want not exist naming %s", err, r)
		}
	}},
	{"put blob verifies", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		good := []byte("the right content")
		for _, tc := range []struct {
			name string
			data []byte
			size int64
		}{
			{"other content", []byte("the wrong content"), int64(len(good))},
			{"short", good[:5], int64(len(good))},
			{"short of a stated size", good, int64(len(good)) + 1},
			{"empty", nil, int64(len(good))},
		} {
			err := r.PutBlob(ctx, sum(good), tc.size, bytes.NewReader(tc.data))
			if !errors.Is(err, cache.ErrCorrupt) {
				t.Errorf("%s: PutBlob = %v, want ErrCorrupt", tc.name, err)
			}
		}
		if keys := door.keys(t); len(keys) != 0 {
			t.Errorf("stored after failed puts: %v", keys)
		}
		// Content longer than stated: the stated size is what is
		// stored, and it must hash to sha.
		if err := r.PutBlob(ctx, sum(good), int64(len(good)), io.MultiReader(bytes.NewReader(good), strings.NewReader("more"))); err != nil {
			t.Errorf("PutBlob of a longer reader: %v", err)
		}
		var got bytes.Buffer
		r.GetBlob(ctx, sum(good), &got)
		if got.String() != string(good) {
			t.Errorf("stored %q", got.String())
		}
	}},
	{"malformed entries", func(t *testing.T, r cache.Remote, door backdoor) {
		fp := fpOf("x")
		valid, _ := jsonOf(entryOf(fp, "x"))
		for _, tc := range []struct{ name, content, want string }{
			{"not JSON", "nope", "invalid character"},
			{"other fingerprint", strings.Replace(valid, fp, fpOf("y"), 1), "fingerprint"},
			{"other version", strings.Replace(valid, `"version": 1`, `"version": 7`, 1), "version 7"},
			{"too large", valid + strings.Repeat(" ", cache.MaxEntrySize), "limit"},
		} {
			door.put(t, "v1/entries/"+fp[:2]+"/"+fp+".json", []byte(tc.content))
			e, err := r.Entry(t.Context(), fp)
			if e != nil || !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), r.String()) {
				t.Errorf("%s: Entry = %v, %v; want ErrCorrupt with %q naming the remote", tc.name, e, err, tc.want)
			}
		}
	}},
	{"hostile keys", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		for _, key := range []string{"../x", "../../" + fpOf("x")[6:], strings.ToUpper(fpOf("x")), "", fpOf("x")[:10]} {
			if _, err := r.HasEntries(ctx, []string{fpOf("ok"), key}); err == nil {
				t.Errorf("HasEntries(%q) succeeded", key)
			}
			if _, err := r.HasBlobs(ctx, []string{key}); err == nil {
				t.Errorf("HasBlobs(%q) succeeded", key)
			}
			if _, err := r.Entry(ctx, key); err == nil {
				t.Errorf("Entry(%q) succeeded", key)
			}
			if err := r.GetBlob(ctx, key, io.Discard); err == nil {
				t.Errorf("GetBlob(%q) succeeded", key)
			}
			if err := r.PutBlob(ctx, key, 1, strings.NewReader("x")); err == nil {
				t.Errorf("PutBlob(%q) succeeded", key)
			}
			if err := r.PutEntry(ctx, &cache.Entry{Fingerprint: key, Kind: "synthesis"}); err == nil {
				t.Errorf("PutEntry(%q) succeeded", key)
			}
			if err := r.DeleteEntry(ctx, key); err == nil {
				t.Errorf("DeleteEntry(%q) succeeded", key)
			}
		}
		if keys := door.keys(t); len(keys) != 0 {
			t.Errorf("stored: %v", keys)
		}
	}},
	{"push and fetch", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		a := &cache.Cache{Local: openLocal(t), Remote: r}
		b := &cache.Cache{Local: openLocal(t), Remote: r}
		files := map[string]string{"json": `{"text":"hi"}`, "txt": "hi", "srt": "1\nhi\n"}
		e := store(t, a.Local, "x", files)
		fp, absent := e.Fingerprint, fpOf("absent")
		if got, err := b.Lookup(ctx, []string{fp, absent}); err != nil || len(got) != 0 {
			t.Errorf("Lookup before Push = %v, %v; want nothing", got, err)
		}
		if err := a.Push(ctx, fp); err != nil {
			t.Fatal(err)
		}
		if err := a.Push(ctx, fp); err != nil {
			t.Fatalf("Push again: %v", err)
		}
		if err := a.Push(ctx, absent); err == nil {
			t.Error("Push of an entry not local succeeded")
		}
		got, err := b.Lookup(ctx, []string{fp, absent})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{fp: r.String()}, got); diff != "" {
			t.Errorf("Lookup after Push (-want +got):\n%s", diff)
		}
		fetched, err := b.Fetch(ctx, fp)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(e, fetched); diff != "" {
			t.Errorf("Fetch (-stored +fetched):\n%s", diff)
		}
		for role, content := range files {
			f, _ := fetched.File(role)
			if data, err := copyOut(t, b.Local, f.SHA256); err != nil || string(data) != content {
				t.Errorf("%s after Fetch: %q, %v; want %q", role, data, err, content)
			}
		}
		if got, _ := b.Lookup(ctx, []string{fp}); got[fp] != "local" {
			t.Errorf("Lookup after Fetch = %v, want local", got)
		}
		if got, err := b.Fetch(ctx, absent); got != nil || err != nil {
			t.Errorf("Fetch of an absent entry = %v, %v; want nil, nil", got, err)
		}
		// A local entry that lost a blob is fetched again.
		os.Remove(blobPath(b.Local, e.Files[0].SHA256))
		if got, err := b.Fetch(ctx, fp); err != nil || got == nil {
			t.Fatalf("Fetch with a blob lost = %v, %v", got, err)
		}
		if _, err := copyOut(t, b.Local, e.Files[0].SHA256); err != nil {
			t.Errorf("lost blob not fetched again: %v", err)
		}
		// A corrupt local entry is replaced by the remote's.
		os.WriteFile(entryPath(b.Local, fp), []byte("garbage"), 0o600)
		if got, err := b.Fetch(ctx, fp); err != nil || got == nil {
			t.Fatalf("Fetch over a corrupt local entry = %v, %v", got, err)
		}
		// And reported when the remote has nothing either.
		r.DeleteEntry(ctx, fp)
		os.WriteFile(entryPath(b.Local, fp), []byte("garbage"), 0o600)
		if got, err := b.Fetch(ctx, fp); got != nil || !errors.Is(err, cache.ErrCorrupt) {
			t.Errorf("Fetch of a corrupt local entry, none remote = %v, %v; want ErrCorrupt", got, err)
		}
		if b.Local.Has(fp) {
			t.Error("corrupt local entry not removed")
		}
	}},
	{"corrupt remote blob", func(t *testing.T, r cache.Remote, door backdoor) {
		for _, tc := range []struct{ name, content string }{
			{"same size", "HELLO WORLD"},
			{"shorter", "hello"},
			{"longer", "hello world and more"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := t.Context()
				a := &cache.Cache{Local: openLocal(t), Remote: r}
				b := &cache.Cache{Local: openLocal(t), Remote: r}
				e := store(t, a.Local, tc.name, map[string]string{"txt": "fine", "json": "hello world"})
				if err := a.Push(ctx, e.Fingerprint); err != nil {
					t.Fatal(err)
				}
				f, _ := e.File("json")
				door.put(t, "v1/blobs/"+f.SHA256[:2]+"/"+f.SHA256, []byte(tc.content))
				got, err := b.Fetch(ctx, e.Fingerprint)
				if got != nil || !errors.Is(err, cache.ErrCorrupt) {
					t.Fatalf("Fetch = %v, %v; want ErrCorrupt", got, err)
				}
				if b.Local.Has(e.Fingerprint) {
					t.Error("entry stored locally")
				}
				for _, p := range files(t, b.Local.Dir()) {
					if strings.Contains(p, f.SHA256) {
						t.Errorf("corrupt blob stored locally: %s", p)
					}
				}
			})
		}
	}},
	{"push verifies local blobs", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		c := &cache.Cache{Local: openLocal(t), Remote: r}
		e := store(t, c.Local, "x", map[string]string{"audio": "hello world"})
		os.WriteFile(blobPath(c.Local, e.Files[0].SHA256), []byte("HELLO WORLD"), 0o600)
		if err := c.Push(ctx, e.Fingerprint); !errors.Is(err, cache.ErrCorrupt) {
			t.Errorf("Push = %v, want ErrCorrupt", err)
		}
		// The fingerprint is announced in the index first; nothing else
		// reaches the remote.
		if keys := slices.DeleteFunc(door.keys(t), func(k string) bool { return strings.HasPrefix(k, "v1/index/") }); len(keys) != 0 {
			t.Errorf("pushed: %v", keys)
		}
		if _, err := os.Stat(blobPath(c.Local, e.Files[0].SHA256)); !os.IsNotExist(err) {
			t.Errorf("corrupt local blob kept: %v", err)
		}
	}},
	{"many lookups", func(t *testing.T, r cache.Remote, door backdoor) {
		ctx := t.Context()
		var fps, want []string
		for i := range 500 {
			fp := fpOf(strings.Repeat("x", i))
			fps = append(fps, fp)
			if i%50 == 0 {
				r.PutEntry(ctx, entryOf(fp))
				want = append(want, fp)
			}
		}
		c := &cache.Cache{Local: openLocal(t), Remote: r}
		got, err := c.Lookup(ctx, fps)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for fp := range got {
			found = append(found, fp)
		}
		slices.Sort(found)
		slices.Sort(want)
		if diff := cmp.Diff(want, found); diff != "" {
			t.Errorf("Lookup (-want +got):\n%s", diff)
		}
	}},
}

// jsonOf is e as JSON, as stored.
func jsonOf(e *cache.Entry) (string, error) {
	data, err := json.MarshalIndent(e, "", "  ")
	return string(data), err
}

// TestVerifier: the reader PutBlob uploads through never delivers the
// last bytes of content that is short or not of its SHA-256, so that no
// upload of it can complete; it delivers exactly the stated size.
func TestVerifier(t *testing.T) {
	good := []byte(strings.Repeat("content ", 1000))
	for _, tc := range []struct {
		name    string
		src     []byte
		size    int
		bufSize int
		corrupt bool
	}{
		{"good", good, len(good), 4096, false},
		{"good, one read", good, len(good), 1 << 20, false},
		{"good, longer source", append(append([]byte(nil), good...), "more"...), len(good), 4096, false},
		{"empty", nil, 0, 4096, false},
		{"last byte differs", append(append([]byte(nil), good[:len(good)-1]...), 'X'), len(good), 4096, true},
		{"last byte differs, one read", append(append([]byte(nil), good[:len(good)-1]...), 'X'), len(good), 1 << 20, true},
		{"first byte differs", append([]byte("X"), good[1:]...), len(good), 4096, true},
		{"short", good[:len(good)-1], len(good), 4096, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := cache.NewVerifier(bytes.NewReader(tc.src), sum(good[:tc.size]), int64(tc.size))
			var got []byte
			buf := make([]byte, tc.bufSize)
			var err error
			for {
				var n int
				n, err = v.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if tc.corrupt {
				if !errors.Is(err, cache.ErrCorrupt) || len(got) >= tc.size {
					t.Errorf("delivered %d of %d bytes, then %v; want fewer, then ErrCorrupt", len(got), tc.size, err)
				}
				return
			}
			if err != io.EOF || !bytes.Equal(got, good[:tc.size]) {
				t.Errorf("delivered %d bytes, then %v; want the %d of the content, then EOF", len(got), err, tc.size)
			}
		})
	}
}
