package miniotest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/voxform/voxform/internal/miniotest"
)

func TestStart(t *testing.T) {
	var endpoint string
	t.Run("running", func(t *testing.T) {
		srv := miniotest.Start(t)
		endpoint = srv.Endpoint
		if !strings.HasPrefix(endpoint, "127.0.0.1:") {
			t.Errorf("Endpoint = %q, want 127.0.0.1:PORT", endpoint)
		}
		a, b := srv.Bucket(t), srv.Bucket(t)
		if a == b {
			t.Errorf("two buckets named %s", a)
		}
		for _, bucket := range []string{a, b} {
			if ok, err := srv.Client().BucketExists(t.Context(), bucket); !ok || err != nil {
				t.Errorf("bucket %s: %v, %v", bucket, ok, err)
			}
		}
		if got := srv.URL(a, "/x/y/"); got != "s3://"+a+"/x/y" {
			t.Errorf("URL = %q", got)
		}
	})
	// Stopped when its test ended.
	if resp, err := http.Get("http://" + endpoint + "/minio/health/live"); err == nil {
		resp.Body.Close()
		t.Errorf("server still answering after its test: %s", resp.Status)
	}
}

// TestRun: a server Run starts, outside any test's cleanup, answers until
// stopped; stop may be called again.
func TestRun(t *testing.T) {
	srv, stop, err := miniotest.Run(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	bucket, err := srv.NewBucket(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := srv.Client().BucketExists(t.Context(), bucket); !ok || err != nil {
		t.Errorf("bucket %s: %v, %v", bucket, ok, err)
	}
	stop()
	if resp, err := http.Get("http://" + srv.Endpoint + "/minio/health/live"); err == nil {
		resp.Body.Close()
		t.Errorf("server still answering after stop: %s", resp.Status)
	}
	stop()
}

// fatalTB records Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestBinaryMissing: without a minio binary the test fails (never skips),
// saying how to build one.
func TestBinaryMissing(t *testing.T) {
	t.Setenv("VOXFORM_MINIO", "")
	t.Setenv("PATH", t.TempDir())
	t.Chdir(t.TempDir()) // no repository above: no .tools/bin
	tb := &fatalTB{TB: t}
	done := make(chan string)
	go func() {
		defer func() { done <- tb.msg }()
		miniotest.Binary(tb)
	}()
	if msg := <-done; !strings.Contains(msg, "./scripts/servers.sh") || !strings.Contains(msg, "VOXFORM_MINIO") {
		t.Errorf("Fatalf(%q), want how to build minio", msg)
	}
	// The benchmark harness's way in fails the same way.
	if _, _, err := miniotest.Run(t.TempDir()); err == nil || !strings.Contains(err.Error(), "./scripts/servers.sh") {
		t.Errorf("Run: %v, want how to build minio", err)
	}
}
