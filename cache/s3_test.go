package cache_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/internal/miniotest"
)

func TestOpenRemote(t *testing.T) {
	for _, tc := range []struct {
		url, endpoint string
		want          string // String(), or the error's text
		fails         bool
	}{
		{url: "s3://bucket/prefix", want: "s3://bucket/prefix"},
		{url: "s3://bucket/a/b/", want: "s3://bucket/a/b"},
		{url: "s3://bucket", want: "s3://bucket"},
		{url: "s3://bucket/p", endpoint: "minio.example.com:9000", want: "s3://bucket/p"},
		{url: "s3://bucket/p", endpoint: "https://minio.example.com", want: "s3://bucket/p"},
		{url: "s3://bucket/p", endpoint: "http://127.0.0.1:9000", want: "s3://bucket/p"},
		{url: "s3://bucket/p", endpoint: "http://127.8.9.10:9000", want: "s3://bucket/p"},
		{url: "s3://bucket/p", endpoint: "http://localhost:9000", want: "s3://bucket/p"},
		{url: "s3://bucket/p", endpoint: "http://[::1]:9000", want: "s3://bucket/p"},
		{url: "file:///srv/cache", want: "file:///srv/cache"},
		{url: "file:///srv/cache/", want: "file:///srv/cache"},
		{url: "file://localhost/srv/cache", want: "file:///srv/cache"},

		{url: "s3://bucket/p", endpoint: "http://minio.example.com", want: "loopback", fails: true},
		{url: "s3://bucket/p", endpoint: "http://127.example.com:9000", want: "loopback", fails: true},
		{url: "s3://bucket/p", endpoint: "http://10.0.0.1:9000", want: "loopback", fails: true},
		{url: "s3://bucket/p", endpoint: "ftp://127.0.0.1", want: "scheme ftp", fails: true},
		{url: "s3://bucket/p", endpoint: "https://host/path", want: "endpoint https://host/path", fails: true},
		{url: "s3://bucket/p", endpoint: "https://AKIAKEY:hunter22@host", want: "endpoint https://host", fails: true},
		{url: "s3://AKIAKEY:hunter22@bucket/p", want: "remote cache s3://bucket/p: credentials do not belong in the URL", fails: true},
		{url: "s3://Bad_Bucket/p", want: "remote cache s3://Bad_Bucket/p: bucket name", fails: true},
		{url: "s3://bucket:9000/p", want: "bucket name", fails: true},
		{url: "s3:///p", want: "bucket name", fails: true},
		{url: "s3://bucket/a/../b", want: "segment", fails: true},
		{url: "s3://bucket/a//b", want: "segment", fails: true},
		{url: "s3://bucket/p?x=1", want: "query", fails: true},
		{url: "https://bucket/p", want: "remote cache https://bucket/p: want s3://", fails: true},
		{url: "bucket/p", want: "want s3://", fails: true},
		{url: "", want: "want s3://", fails: true},
		{url: "file://relative/dir", want: "local directory", fails: true},
		{url: "file:///srv/../etc", want: "absolute, clean", fails: true},
		{url: "file:relative", want: "opaque", fails: true},
		{url: "s3://bu cket/%zz", want: "remote cache s3://bu cket/%zz: invalid", fails: true},
	} {
		t.Run(tc.url+" "+tc.endpoint, func(t *testing.T) {
			r, err := cache.OpenRemote(cache.RemoteConfig{URL: tc.url, Endpoint: tc.endpoint})
			switch {
			case tc.fails && err == nil:
				t.Fatalf("OpenRemote = %v, want an error with %q", r, tc.want)
			case tc.fails && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("OpenRemote: %v; want an error with %q", err, tc.want)
			case tc.fails && strings.Contains(err.Error(), "hunter22") || tc.fails && strings.Contains(err.Error(), "AKIAKEY"):
				t.Fatalf("the error shows credentials: %v", err)
			case !tc.fails && err != nil:
				t.Fatalf("OpenRemote: %v", err)
			case !tc.fails && r.String() != tc.want:
				t.Fatalf("String() = %q, want %q", r.String(), tc.want)
			}
		})
	}
	t.Run("file with endpoint", func(t *testing.T) {
		if _, err := cache.OpenRemote(cache.RemoteConfig{URL: "file:///srv", Endpoint: "http://127.0.0.1:1"}); err == nil {
			t.Error("an endpoint for a directory remote accepted")
		}
	})
}

// TestCredentialsNotInErrors: wrong credentials fail every call with an
// error that names the remote and holds no credential.
func TestCredentialsNotInErrors(t *testing.T) {
	srv := miniotest.Start(t)
	bucket := srv.Bucket(t)
	s3Env(t, srv.AccessKey, "sekret-XYZ")
	t.Setenv("AWS_SESSION_TOKEN", "session-TOKEN-123")
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: srv.URL(bucket, "p"), Endpoint: "http://" + srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	fp := fpOf("x")
	calls := map[string]func() error{
		"Check":      func() error { return r.Check(ctx) },
		"HasEntries": func() error { _, err := r.HasEntries(ctx, []string{fp}); return err },
		"Entry":      func() error { _, err := r.Entry(ctx, fp); return err },
		"GetBlob":    func() error { return r.GetBlob(ctx, fp, io.Discard) },
		"PutBlob":    func() error { return r.PutBlob(ctx, sum([]byte("x")), 1, strings.NewReader("x")) },
		"PutEntry":   func() error { return r.PutEntry(ctx, entryOf(fp)) },
		"ListEntries": func() error {
			return r.ListEntries(ctx, func(string, time.Time) error { return nil })
		},
	}
	for name, call := range calls {
		err := call()
		if err == nil {
			t.Errorf("%s succeeded with a wrong secret key", name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, r.String()) {
			t.Errorf("%s: %q does not name the remote %s", name, msg, r)
		}
		for _, secret := range []string{"sekret-XYZ", "session-TOKEN-123", srv.SecretKey} {
			if strings.Contains(msg, secret) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), secret) {
				t.Errorf("%s: the error shows a credential: %q", name, msg)
			}
		}
	}
	t.Run("missing bucket", func(t *testing.T) {
		s3Env(t, srv.AccessKey, srv.SecretKey)
		r, _ := cache.OpenRemote(cache.RemoteConfig{URL: srv.URL("no-such-bucket", "p"), Endpoint: "http://" + srv.Endpoint})
		err := r.Check(t.Context())
		if err == nil || !strings.Contains(err.Error(), "s3://no-such-bucket/p") || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("Check = %v, want an error naming the remote and the missing bucket", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		r, _ := cache.OpenRemote(cache.RemoteConfig{URL: "s3://bucket/p", Endpoint: "http://127.0.0.1:1"})
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if err := r.Check(ctx); err == nil || !strings.Contains(err.Error(), "s3://bucket/p") {
			t.Errorf("Check = %v, want an error naming the remote", err)
		}
	})
}

// TestLookupsPooled: HasEntries and HasBlobs have 32 requests in flight
// at once, never more.
func TestLookupsPooled(t *testing.T) {
	var keys []string
	for i := range 200 {
		keys = append(keys, fpOf(fmt.Sprint(i)))
	}
	var mu sync.Mutex
	inFlight, most, filled := 0, 0, false
	full := make(chan struct{})
	has := func(ctx context.Context, key string) (bool, error) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 32 && !filled {
			filled = true
			close(full)
		}
		mu.Unlock()
		select {
		case <-full:
		case <-time.After(10 * time.Second):
			return false, errors.New("fewer than 32 requests in flight")
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return key == keys[7], nil
	}
	got, err := cache.HasAll(t.Context(), keys, "fingerprint", has)
	if err != nil {
		t.Fatal(err)
	}
	if most != 32 {
		t.Errorf("%d requests in flight at most, want 32", most)
	}
	if len(got) != len(keys) || !got[keys[7]] || got[keys[8]] {
		t.Errorf("answers wrong: %d of %d, %v %v", len(got), len(keys), got[keys[7]], got[keys[8]])
	}
}

// TestServerEchoRedacted: a server whose error messages repeat the
// credentials it was sent (the access key and session token travel in
// headers) does not get them into voxform's errors.
func TestServerEchoRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>denied: %s / %s</Message></Error>`,
			html.EscapeString(r.Header.Get("Authorization")), html.EscapeString(r.Header.Get("X-Amz-Security-Token")))
	}))
	defer srv.Close()
	s3Env(t, "AKIAECHOEXAMPLE", "sekret-XYZ")
	t.Setenv("AWS_SESSION_TOKEN", "session-TOKEN-123")
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: "s3://bucket/p", Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), "denied: ") || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("Check = %v, want the server's message, redacted", err)
	}
	for _, secret := range []string{"AKIAECHOEXAMPLE", "session-TOKEN-123", "sekret-XYZ"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %s: %v", secret, err)
		}
	}
}
