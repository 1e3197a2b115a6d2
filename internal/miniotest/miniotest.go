package miniotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
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
)

// startTimeout bounds the wait for a server to answer its health check.
const startTimeout = 30 * time.Second

// Server is a MinIO server running for one test.
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

// Bucket creates a new empty bucket and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test-%d-%s", bucketSeq.Add(1), randomHex(4))
	if err := s.client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
	return name
}

// Start starts a MinIO server on free loopback ports, with its data in a
// temporary directory, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	s := &Server{AccessKey: "voxform-" + randomHex(4), SecretKey: "secret-" + randomHex(12)}
	s.Endpoint = freeAddr(t)
	var out syncBuffer
	cmd := exec.Command(bin, "server", filepath.Join(dir, "data"),
		"--address", s.Endpoint, "--console-address", freeAddr(t),
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
		t.Fatalf("start minio: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stop(cmd, exited) })
	if err := waitLive(s.Endpoint, exited); err != nil {
		t.Fatalf("start minio %s: %v\n%s", bin, err, out.String())
	}
	client, err := minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region: "us-east-1",
	})
	if err != nil {
		t.Fatalf("minio client: %v", err)
	}
	s.client = client
	return s
}

// Binary finds the minio binary, or fails the test saying how to build it.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("VOXFORM_MINIO"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("VOXFORM_MINIO: %v", err)
		}
		return p
	}
	if root, ok := repoRoot(); ok {
		p := filepath.Join(root, ".tools", "bin", "minio")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p
	}
	t.Fatalf("the minio server binary is missing: run ./scripts/servers.sh (builds .tools/bin/minio, about 4 minutes), or set VOXFORM_MINIO to a minio binary")
	return ""
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
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
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

// stop ends the server: SIGTERM, then SIGKILL if it lingers.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// syncBuffer collects the server's output for a failure message.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
