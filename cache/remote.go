package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Remote is a shared cache: the same layout as the local one, in an S3
// bucket or a directory. Every error names the remote (String) and never
// holds credentials.
type Remote interface {
	// String names the remote, "s3://bucket/prefix" or "file:///dir",
	// never with credentials.
	String() string
	// Check reports whether the remote can be used: reachable, the bucket
	// or directory there, the credentials accepted.
	Check(ctx context.Context) error
	// HasEntries reports which fingerprints have an entry, with up to 32
	// requests in flight (a request may answer for many).
	HasEntries(ctx context.Context, fps []string) (map[string]bool, error)
	// Entry reads fp's entry: (nil, nil) when absent, an error wrapping
	// ErrCorrupt when malformed.
	Entry(ctx context.Context, fp string) (*Entry, error)
	// HasBlobs reports which blobs are there, as HasEntries does.
	HasBlobs(ctx context.Context, shas []string) (map[string]bool, error)
	// GetBlob streams the blob sha into w; the caller verifies it. A
	// missing blob is an error wrapping fs.ErrNotExist.
	GetBlob(ctx context.Context, sha string, w io.Writer) error
	// PutBlob stores r as the blob sha, atomically: it fails, and nothing
	// becomes visible, unless r delivers size bytes whose SHA-256 is sha
	// (an error wrapping ErrCorrupt).
	PutBlob(ctx context.Context, sha string, size int64, r io.Reader) error
	// PutEntry stores e, atomically. Its blobs must be there already.
	PutEntry(ctx context.Context, e *Entry) error
	// ListEntries calls fn with every entry's fingerprint and the time it
	// was last written; an error from fn ends the listing and is returned.
	ListEntries(ctx context.Context, fn func(fp string, modified time.Time) error) error
	// DeleteEntry removes fp's entry; an absent one is no error.
	DeleteEntry(ctx context.Context, fp string) error

	// The index's segments (see Cache.Announce), each named by the
	// SHA-256 of its content.

	// ListIndex returns the names of the segments: every object of
	// v1/index/ named by 64 lowercase hexadecimal digits, up to one more
	// than a lookup reads (maxIndexSegments).
	ListIndex(ctx context.Context) ([]string, error)
	// GetIndex streams the segment name into w; a missing one is an error
	// wrapping fs.ErrNotExist.
	GetIndex(ctx context.Context, name string, w io.Writer) error
	// PutIndex stores r as the segment name, atomically: it fails, and
	// nothing becomes visible, unless r delivers size bytes whose SHA-256
	// is name.
	PutIndex(ctx context.Context, name string, size int64, r io.Reader) error
	// DeleteIndex removes the segment name; an absent one is no error.
	DeleteIndex(ctx context.Context, name string) error
}

// RemoteConfig says where a remote cache is.
type RemoteConfig struct {
	URL      string // s3://bucket/prefix, or file:///abs/path (a directory remote, for tests and shared disks)
	Endpoint string // S3 endpoint host[:port] or URL; empty: AWS (s3.amazonaws.com / region endpoint)
	Region   string // empty: AWS_REGION, then us-east-1
}

// remoteWorkers is how many requests HasEntries and HasBlobs have in
// flight at once.
const remoteWorkers = 32

// OpenRemote makes the remote cfg describes, without any I/O: Check is
// what reaches it. A bad URL or endpoint is an error naming it (without
// any user information it holds).
func OpenRemote(cfg RemoteConfig) (Remote, error) {
	shown := hideUserinfo(cfg.URL)
	u, err := url.Parse(cfg.URL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("remote cache %s: %w", shown, err)
	}
	switch {
	case u.User != nil:
		return nil, fmt.Errorf("remote cache %s: credentials do not belong in the URL (S3 takes them from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)", shown)
	case u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return nil, fmt.Errorf("remote cache %s: a query, fragment or opaque part is not allowed", shown)
	}
	switch u.Scheme {
	case "s3":
		return openS3(cfg, u, shown)
	case "file":
		if cfg.Endpoint != "" || cfg.Region != "" {
			return nil, fmt.Errorf("remote cache %s: an endpoint or region applies to s3:// only", shown)
		}
		return openDir(u, shown)
	}
	return nil, fmt.Errorf("remote cache %s: want s3://bucket/prefix or file:///absolute/path", shown)
}

// hideUserinfo is raw without the user information of its authority.
func hideUserinfo(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest := raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return raw[:i+3] + rest[at+1:]
	}
	return raw
}

// openDir makes the directory remote of a file:// URL.
func openDir(u *url.URL, shown string) (Remote, error) {
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("remote cache %s: a file URL names a local directory (file:///path)", shown)
	}
	p := u.Path
	if !filepath.IsAbs(p) || p != filepath.Clean(p) && p != filepath.Clean(p)+"/" {
		return nil, fmt.Errorf("remote cache %s: want an absolute, clean directory path", shown)
	}
	return &dirRemote{dir: filepath.Clean(p)}, nil
}

// cleanPrefix checks a key prefix: slash-separated segments, none empty,
// "." or "..".
func cleanPrefix(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return "", errors.New("the prefix has an empty, . or .. segment")
		}
	}
	return p, nil
}

// region is the S3 region: the configured one, AWS_REGION, us-east-1.
func region(configured string) string {
	if configured != "" {
		return configured
	}
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r
	}
	return "us-east-1"
}

// hasAll asks has about every key (each valid, checked first), up to
// remoteWorkers at once, and returns the answers. The first error ends it.
func hasAll(ctx context.Context, keys []string, what string, has func(ctx context.Context, key string) (bool, error)) (map[string]bool, error) {
	out, err := checkKeys(keys, what)
	if err != nil {
		return nil, err
	}
	unique := make([]string, 0, len(out))
	for k := range out {
		unique = append(unique, k)
	}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(remoteWorkers)
	for _, k := range unique {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			ok, err := has(ctx, k)
			if err != nil {
				return err
			}
			mu.Lock()
			out[k] = ok
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// invalidKey is the error of a key that cannot name an entry or a blob.
func invalidKey(what, key string) error {
	return fmt.Errorf("invalid %s %.80q: want 64 lowercase hexadecimal digits", what, key)
}

// verifier passes a blob through, hashing it. It delivers at most size
// bytes, and fails instead of delivering the last chunk when the content
// turns out short or not of the SHA-256 sha: an upload of it never
// completes with the wrong content.
type verifier struct {
	r    io.Reader
	sha  string
	size int64
	n    int64
	h    hash.Hash
	err  error // sticky: io.EOF once verified
}

func newVerifier(r io.Reader, sha string, size int64) *verifier {
	return &verifier{r: r, sha: sha, size: size, h: sha256.New()}
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.n == v.size {
		return 0, v.verify()
	}
	if rem := v.size - v.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	k, err := v.r.Read(p)
	v.h.Write(p[:k])
	v.n += int64(k)
	switch {
	case v.n == v.size:
		if err := v.verify(); err != io.EOF {
			return 0, err
		}
		return k, nil
	case err == io.EOF:
		v.err = fmt.Errorf("%w: blob %s: %d bytes, want %d", ErrCorrupt, v.sha, v.n, v.size)
		return 0, v.err
	}
	return k, err
}

// verify ends the content: io.EOF when it matches, an error otherwise.
func (v *verifier) verify() error {
	if sum := hex.EncodeToString(v.h.Sum(nil)); sum != v.sha {
		v.err = fmt.Errorf("%w: blob %s: content has sha256 %s", ErrCorrupt, v.sha, sum)
	} else {
		v.err = io.EOF
	}
	return v.err
}
