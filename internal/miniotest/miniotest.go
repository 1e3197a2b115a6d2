package miniotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/voxform/voxform/internal/servers"
)

// startTimeout bounds the wait for a server to answer its health check.
const startTimeout = 30 * time.Second

// Server is a running MinIO server.
type Server struct {
	Endpoint  string // 127.0.0.1:PORT, plain HTTP
	AccessKey string
	SecretKey string

	client *minio.Client
}

// URL is the s3:// URL of prefix in bucket.
func (s *Server) URL(bucket, prefix string) string {
	if prefix == "" {
		return "s3://" + bucket
	}
	return "s3://" + bucket + "/" + strings.Trim(prefix, "/")
}

// Client is a client of the server with its root credentials, for a test
// to look behind the code under test.
func (s *Server) Client() *minio.Client { return s.client }

var bucketSeq atomic.Int64

// NewBucket creates a new empty bucket and returns its name.
func (s *Server) NewBucket(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test-%d-%s", bucketSeq.Add(1), servers.RandomHex(4))
	if err := s.client.MakeBucket(ctx, name, minio.MakeBucketOptions{}); err != nil {
		return "", fmt.Errorf("make bucket %s: %w", name, err)
	}
	return name, nil
}

// Bucket is NewBucket for a test, which fails if it cannot.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name, err := s.NewBucket(context.Background())
	if err != nil {
		t.Fatalf("%v", err)
	}
	return name
}

// Start starts a MinIO server (Run) with its data in a temporary
// directory, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s, stop, err := Run(t.TempDir())
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(stop)
	return s
}

// Run starts a MinIO server on free loopback ports, with new root
// credentials and its data below dir, and returns once it answers. stop
// ends it (SIGTERM, then SIGKILL if it lingers); it may be called more
// than once. The binary is found as Binary does.
func Run(dir string) (s *Server, stop func(), err error) {
	bin, err := FindBinary()
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("start minio: %w", err)
	}
	s = &Server{AccessKey: "voxform-" + servers.RandomHex(4), SecretKey: "secret-" + servers.RandomHex(12)}
	if s.Endpoint, err = freeAddr(); err != nil {
		return nil, nil, err
	}
	console, err := freeAddr()
	if err != nil {
		return nil, nil, err
	}
	var out servers.Log
	cmd := exec.Command(bin, "server", filepath.Join(dir, "data"),
		"--address", s.Endpoint, "--console-address", console,
		"--certs-dir", filepath.Join(dir, "certs"), "--quiet")
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+s.AccessKey,
		"MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off",
		"MINIO_UPDATE=off",
		"HOME="+dir,
	)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start minio: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var once sync.Once
	stop = func() { once.Do(func() { terminate(cmd, exited) }) }
	if err := waitLive(s.Endpoint, exited); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start minio %s: %w\n%s", bin, err, out.String())
	}
	s.client, err = minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region: "us-east-1",
	})
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("minio client: %w", err)
	}
	return s, stop, nil
}

// Binary finds the minio binary (FindBinary), or fails the test saying how
// to build it.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := FindBinary()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return p
}

// FindBinary finds the minio binary: $VOXFORM_MINIO, then
// <repo>/.tools/bin/minio, then minio on PATH. Without one, the error
// says how to build it.
func FindBinary() (string, error) {
	if p := os.Getenv("VOXFORM_MINIO"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("VOXFORM_MINIO: %w", err)
		}
		return p, nil
	}
	if root, ok := repoRoot(); ok {
		p := filepath.Join(root, ".tools", "bin", "minio")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p, nil
	}
	return "", errors.New("the minio server binary is missing: run ./scripts/servers.sh (builds .tools/bin/minio, about 4 minutes), or set VOXFORM_MINIO to a minio binary")
}

// repoRoot is the nearest directory up from the working directory whose
// go.mod is voxform's.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/voxform/voxform\n")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	a, err := servers.FreeAddr()
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return a.String(), nil
}

// waitLive polls the server's liveness endpoint until it answers 200.
func waitLive(endpoint string, exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("the server exited")
		default:
		}
		resp, err := client.Get("http://" + endpoint + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("the server exited")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("not live after %v", startTimeout)
}

// terminate ends the server: SIGTERM, then SIGKILL if it lingers.
func terminate(cmd *exec.Cmd, exited <-chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}
