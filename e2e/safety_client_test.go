package e2e_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clientProject is a project of one synthesis against base, with
// service.timeout 300ms and one retry.
func clientProject(t *testing.T, base string) *project {
	t.Helper()
	p := newProject(t, "", nil)
	manifest := `version: 1
service:
  base_url: ` + base + `
  timeout: 300ms
  retries: 1
voices:
  narrator: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  hello:
    voice: narrator
    text: "hello there"
    output: build/hello.wav
`
	if err := os.WriteFile(filepath.Join(p.dir, "voxform.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// acceptSilently accepts TCP connections on a loopback port and never
// answers; it returns the host:port.
func acceptSilently(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// runWithin runs voxform and fails the test if it has not ended within
// limit (it is then killed).
func (p *project) runWithin(limit time.Duration, args ...string) result {
	p.t.Helper()
	cmd, stdout, stderr := p.command(args...)
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		p.t.Fatalf("voxform %s was still running after %v:\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), limit, stdout, stderr)
	}
	return result{args: args, stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// An apply against a service that accepts the connection and never answers
// ends, holding no lock, with an error that names the host and
// service.timeout; a second apply can run at once.
func TestApplyAgainstASilentServiceEnds(t *testing.T) {
	host := acceptSilently(t)
	p := clientProject(t, "http://"+host)
	start := time.Now()
	r := p.runWithin(60*time.Second, "apply", "-auto-approve")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.code, r)
	}
	want := "no answer from " + host + " within 300ms (service.timeout)"
	if !strings.Contains(r.stdout+r.stderr, want) {
		t.Fatalf("the output does not say %q:\n%s", want, r)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("apply took %v against a silent host with a 300ms timeout and one retry", took)
	}
	if p.exists("build/hello.wav") {
		t.Error("an output was written")
	}
	if r := p.runWithin(60*time.Second, "apply", "-auto-approve"); r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Fatalf("a second apply did not run as the first (a lock left behind?):\n%s", r)
	}
}

// A service or proxy that echoes the key it was sent in its 403 body never
// gets it into voxform's output, as text or as -json.
func TestEchoedKeyNeverPrinted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-API-Key-ID")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"success": false, "error": {"type": "FORBIDDEN", "message": "Invalid key %s (%s)"}}`, key, url.QueryEscape(key))
	}))
	defer srv.Close()
	p := clientProject(t, srv.URL)
	for _, args := range [][]string{{"apply", "-auto-approve"}, {"apply", "-auto-approve", "-json"}} {
		r := p.runWithin(60*time.Second, args...)
		out := r.stdout + r.stderr
		if r.code != 1 || !strings.Contains(out, "Invalid key [redacted]") {
			t.Fatalf("want the service's refusal, redacted:\n%s", r)
		}
		for _, form := range []string{testKey, url.QueryEscape(testKey)} {
			if strings.Contains(out, form) {
				t.Fatalf("the key is in the output:\n%s", r)
			}
		}
	}
}
