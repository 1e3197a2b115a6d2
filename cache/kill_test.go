package cache_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/internal/miniotest"
)

// helperEnv switches the test binary into the kill helper: a process that
// starts a write, says "ready" on stdout when it is well under way, and
// waits there to be killed.
const helperEnv = "VOXFORM_CACHE_KILL_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(killHelper(mode))
	}
	os.Exit(m.Run())
}

// killHelper runs a write that stalls midway: "put" uploads a blob of
// VOXFORM_KILL_SIZE bytes to the remote VOXFORM_KILL_URL and stalls before
// its last byte; "store" stores a file into the local cache
// VOXFORM_KILL_DIR and stalls 8 MiB into the copy; "batch" stores it
// through a Batch and stalls before the batch flushes.
func killHelper(mode string) int {
	size, _ := strconv.ParseInt(os.Getenv("VOXFORM_KILL_SIZE"), 10, 64)
	stall := func() {
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin) // until killed
	}
	var err error
	switch mode {
	case "put":
		var r cache.Remote
		r, err = cache.OpenRemote(cache.RemoteConfig{URL: os.Getenv("VOXFORM_KILL_URL"), Endpoint: os.Getenv("VOXFORM_KILL_ENDPOINT")})
		if err == nil {
			src := io.MultiReader(io.LimitReader(&pattern{}, size-1), stallReader(stall))
			err = r.PutBlob(context.Background(), patternSHA(size), size, src)
		}
	case "store":
		var l *cache.Local
		l, err = cache.OpenLocal(os.Getenv("VOXFORM_KILL_DIR"))
		if err == nil {
			cache.SetCopyHook(func(n int64) {
				if n >= 8<<20 {
					stall()
				}
			})
			e := &cache.Entry{Fingerprint: fpOf("big"), Kind: "synthesis", Files: []cache.File{{Role: "audio", SHA256: patternSHA(size), Size: size}}}
			err = l.Store(e, map[string]string{"audio": os.Getenv("VOXFORM_KILL_SRC")})
		}
	case "batch":
		var l *cache.Local
		l, err = cache.OpenLocal(os.Getenv("VOXFORM_KILL_DIR"))
		if err == nil {
			e := &cache.Entry{Fingerprint: fpOf("big"), Kind: "synthesis", Files: []cache.File{{Role: "audio", SHA256: patternSHA(size), Size: size}}}
			if err = l.Batch().Store(e, map[string]string{"audio": os.Getenv("VOXFORM_KILL_SRC")}); err == nil {
				stall() // the blob in place, the entry held
			}
		}
	}
	fmt.Printf("the write ended without being killed: %v\n", err)
	return 3
}

// pattern is an endless stream of bytes that are not all alike: 0 to
// 250, again and again.
type pattern struct{ n int }

// patternBlock is the start of pattern, long enough to copy from.
var patternBlock = func() []byte {
	b := make([]byte, 251<<12)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}()

func (p *pattern) Read(b []byte) (int, error) {
	k := copy(b, patternBlock[p.n%251:])
	p.n += k
	return k, nil
}

// patternSHA is the SHA-256 of the first size bytes of pattern.
func patternSHA(size int64) string {
	h := sha256.New()
	io.Copy(h, io.LimitReader(&pattern{}, size))
	return hex.EncodeToString(h.Sum(nil))
}

// stallReader calls stall on its first read.
type stallReader func()

func (s stallReader) Read([]byte) (int, error) {
	s()
	return 0, io.EOF
}

// killMidway runs the kill helper with env, waits until it is ready and
// kills it (SIGKILL).
func killMidway(t *testing.T, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		said <- line
	}()
	var line string
	select {
	case line = <-said:
	case <-time.After(2 * time.Minute):
		line = "nothing in 2 minutes"
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if line != "ready\n" {
		t.Fatalf("the helper said %q, not ready; stderr:\n%s", line, stderr.String())
	}
}

// TestKillDuringPush: a process killed while uploading a blob leaves
// nothing visible at the blob's key, in S3 (a single PUT, and a multipart
// upload with parts already sent) and in a directory remote.
func TestKillDuringPush(t *testing.T) {
	srv := miniotest.Start(t)
	s3Env(t, srv.AccessKey, srv.SecretKey)
	for _, tc := range []struct {
		name string
		size int64
		s3   bool
	}{
		{"s3 multipart", 40 << 20, true},
		{"s3 single put", 5 << 20, true},
		{"dir", 40 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, endpoint := "file://"+t.TempDir(), ""
			var bucket string
			if tc.s3 {
				bucket = srv.Bucket(t)
				url, endpoint = srv.URL(bucket, "p"), "http://"+srv.Endpoint
			}
			r, err := cache.OpenRemote(cache.RemoteConfig{URL: url, Endpoint: endpoint})
			if err != nil {
				t.Fatal(err)
			}
			sha := patternSHA(tc.size)
			killMidway(t, helperEnv+"=put", "VOXFORM_KILL_URL="+url, "VOXFORM_KILL_ENDPOINT="+endpoint, fmt.Sprintf("VOXFORM_KILL_SIZE=%d", tc.size))

			if has, err := r.HasBlobs(t.Context(), []string{sha}); err != nil || has[sha] {
				t.Fatalf("HasBlobs after the kill = %v, %v; want absent", has, err)
			}
			if err := r.GetBlob(t.Context(), sha, io.Discard); err == nil {
				t.Fatal("GetBlob after the kill succeeded")
			}
			key := "v1/blobs/" + sha[:2] + "/" + sha
			if tc.s3 {
				_, err := srv.Client().StatObject(t.Context(), bucket, "p/"+key, minio.StatObjectOptions{})
				if minio.ToErrorResponse(err).Code != "NoSuchKey" {
					t.Fatalf("object after the kill: %v", err)
				}
				if tc.size > 16<<20 {
					// The kill came midway: the upload was begun.
					n := 0
					for u := range srv.Client().ListIncompleteUploads(t.Context(), bucket, "p/"+key, true) {
						if u.Err == nil {
							n++
						}
					}
					if n == 0 {
						t.Error("no incomplete upload: the kill did not come midway")
					}
				}
			} else {
				dir := strings.TrimPrefix(url, "file://")
				left := files(t, dir)
				if len(left) != 1 || !strings.Contains(left[0], ".voxform-tmp-") {
					t.Errorf("files after the kill = %v, want one temporary file", left)
				}
			}
			// The blob can be put again, whole.
			if err := r.PutBlob(t.Context(), sha, tc.size, io.LimitReader(&pattern{}, tc.size)); err != nil {
				t.Fatal(err)
			}
			if has, _ := r.HasBlobs(t.Context(), []string{sha}); !has[sha] {
				t.Error("blob put after the kill is not there")
			}
		})
	}
}

// TestKillDuringStore: a Store killed midway through a copy leaves no
// entry and no blob, and OpenLocal sweeps its temporary file.
func TestKillDuringStore(t *testing.T) {
	const size = 40 << 20
	dir, src := killFiles(t, size)
	killMidway(t, helperEnv+"=store", "VOXFORM_KILL_DIR="+dir, "VOXFORM_KILL_SRC="+src, fmt.Sprintf("VOXFORM_KILL_SIZE=%d", size))

	sha := patternSHA(size)
	temp := ""
	for _, f := range files(t, dir) {
		if strings.Contains(f, sha+".voxform-tmp-") {
			temp = f
		}
	}
	if temp == "" {
		t.Fatalf("no temporary blob after the kill: %v", files(t, dir))
	}
	l, err := cache.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Has(fpOf("big")) {
		t.Error("an entry is visible")
	}
	if _, err := os.Stat(blobPath(l, sha)); !os.IsNotExist(err) {
		t.Errorf("a blob is visible: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, temp)); !os.IsNotExist(err) {
		t.Errorf("temporary blob not swept: %v", err)
	}
}

// TestKillDuringBatch: a process killed while a Batch holds an entry
// leaves its blob in place but no entry; GC removes the blob.
func TestKillDuringBatch(t *testing.T) {
	const size = 1 << 20
	dir, src := killFiles(t, size)
	killMidway(t, helperEnv+"=batch", "VOXFORM_KILL_DIR="+dir, "VOXFORM_KILL_SRC="+src, fmt.Sprintf("VOXFORM_KILL_SIZE=%d", size))

	l, err := cache.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Has(fpOf("big")) {
		t.Error("an entry is visible")
	}
	sha := patternSHA(size)
	if _, err := os.Stat(blobPath(l, sha)); err != nil {
		t.Fatalf("the blob is not in place: %v", err)
	}
	for _, f := range files(t, dir) {
		if strings.Contains(f, ".voxform-tmp-") {
			t.Errorf("temporary file left: %s", f)
		}
	}
	rep, err := l.GC(cache.GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 1 {
		t.Errorf("GC removed %d blobs, want the one no entry references", rep.Blobs)
	}
}

// killFiles returns the directory of a local cache to make and a file of
// size bytes of pattern to store in it.
func killFiles(t *testing.T, size int64) (dir, src string) {
	t.Helper()
	base := t.TempDir()
	dir, src = filepath.Join(base, "cache"), filepath.Join(base, "big.wav")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, io.LimitReader(&pattern{}, size)); err != nil {
		t.Fatal(err)
	}
	return dir, src
}
