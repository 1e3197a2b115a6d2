package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/voxform/voxform/contract"
)

// Timeouts of the S3 remote's connections: a request never waits forever
// on a server that stopped answering, whatever the caller's context.
const (
	dialTimeout           = 10 * time.Second
	responseHeaderTimeout = time.Minute
	// idleTimeout bounds each read and write on a connection: a body that
	// stops flowing for this long fails the request.
	idleTimeout = 2 * time.Minute
	// partSize is the size of the parts of a multipart upload, which is
	// used above it; minio-go holds one part in memory.
	partSize = 16 << 20
	// maxIdleConns is how many idle connections to the server are kept
	// for the next requests.
	maxIdleConns = 64
)

// s3Remote is a remote cache in an S3 bucket, below a key prefix.
type s3Remote struct {
	client *minio.Client
	core   minio.Core               // client's, for requests of one round trip
	creds  *credentials.Credentials // for redact only
	bucket string
	prefix string // no leading or trailing slash; "" for none
}

// openS3 makes the S3 remote of an s3:// URL.
func openS3(cfg RemoteConfig, u *url.URL, shown string) (Remote, error) {
	if err := s3utils.CheckValidBucketNameStrict(u.Host); err != nil {
		return nil, fmt.Errorf("remote cache %s: bucket name: %w", shown, err)
	}
	prefix, err := cleanPrefix(u.Path)
	if err != nil {
		return nil, fmt.Errorf("remote cache %s: %w", shown, err)
	}
	host, secure, err := parseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("remote cache %s: endpoint %s: %w", shown, hideUserinfo(cfg.Endpoint), err)
	}
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, fmt.Errorf("remote cache %s: %w", shown, err)
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return idleConn{c}, nil
	}
	tr.ResponseHeaderTimeout = responseHeaderTimeout
	// Lookups, pulls and pushes keep dozens of requests in flight:
	// minio-go's default of 16 idle connections would close and open
	// connections all along.
	tr.MaxIdleConnsPerHost = maxIdleConns
	// The standard AWS chain: the environment, the shared credentials
	// and config files (AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE), then
	// the instance or container role.
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{},
	})
	client, err := minio.New(host, &minio.Options{
		Creds:      creds,
		Secure:     secure,
		Transport:  tr,
		Region:     region(cfg.Region),
		MaxRetries: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("remote cache %s: %w", shown, err)
	}
	return &s3Remote{client: client, core: minio.Core{Client: client}, creds: creds, bucket: u.Host, prefix: prefix}, nil
}

// parseEndpoint reads an S3 endpoint: empty for AWS, host[:port] (https),
// https://host[:port], or http://host[:port] on the loopback interface
// only (credentials sign every request, and the content travels in the
// clear).
func parseEndpoint(ep string) (host string, secure bool, err error) {
	if ep == "" {
		return "s3.amazonaws.com", true, nil
	}
	if !strings.Contains(ep, "://") {
		if strings.ContainsAny(ep, "/?#@ ") {
			return "", false, errors.New("want host[:port] or https://host[:port]")
		}
		return ep, true, nil
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" || u.User != nil || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return "", false, errors.New("want host[:port] or https://host[:port]")
	}
	switch u.Scheme {
	case "https":
		return u.Host, true, nil
	case "http":
		if !contract.IsLoopback(u.Host) {
			return "", false, errors.New("http:// is allowed on the loopback interface only; use https://")
		}
		return u.Host, false, nil
	}
	return "", false, fmt.Errorf("scheme %s: want https", u.Scheme)
}

// idleConn fails a read or write that makes no progress for idleTimeout.
type idleConn struct{ net.Conn }

func (c idleConn) Read(p []byte) (int, error) {
	c.SetReadDeadline(time.Now().Add(idleTimeout))
	return c.Conn.Read(p)
}

func (c idleConn) Write(p []byte) (int, error) {
	c.SetWriteDeadline(time.Now().Add(idleTimeout))
	return c.Conn.Write(p)
}

func (r *s3Remote) String() string {
	if r.prefix == "" {
		return "s3://" + r.bucket
	}
	return "s3://" + r.bucket + "/" + r.prefix
}

// key is the object key of a key of the layout.
func (r *s3Remote) key(k string) string {
	if r.prefix == "" {
		return k
	}
	return r.prefix + "/" + k
}

// fail names the remote in an error of op, with any credential the
// error's text holds replaced.
func (r *s3Remote) fail(op string, err error) error {
	return r.redact(fmt.Errorf("%s in remote cache %s: %w", op, r, err))
}

// redact replaces the credentials in use in err's text, if any. Neither
// voxform nor minio-go puts them there; this is a second line for server
// messages that might.
func (r *s3Remote) redact(err error) error {
	if r.creds.IsExpired() {
		return err // none retrieved, none to leak
	}
	v, verr := r.creds.GetWithContext(r.client.CredContext())
	if verr != nil {
		return err
	}
	text := err.Error()
	shown := text
	for _, s := range []string{v.SecretAccessKey, v.SessionToken, v.AccessKeyID} {
		if len(s) >= 4 {
			shown = strings.ReplaceAll(shown, s, "[redacted]")
		}
	}
	if shown == text {
		return err
	}
	return &redactedError{text: shown, err: err}
}

// redactedError is an error with credentials removed from its text.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// errorCode is the S3 error code of err, "" when it has none.
func errorCode(err error) (code string, status int) {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code, er.StatusCode
	}
	return "", 0
}

// notFound reports whether err says that an object is not there.
func notFound(err error) bool {
	code, _ := errorCode(err)
	return code == "NoSuchKey"
}

// missingError is the error of a blob that is not there.
type missingError struct{ what string }

func (e missingError) Error() string        { return "no such " + e.what }
func (e missingError) Is(target error) bool { return target == fs.ErrNotExist }

func (r *s3Remote) Check(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for obj := range r.client.ListObjects(ctx, r.bucket, minio.ListObjectsOptions{Prefix: r.key("v1/"), MaxKeys: 1}) {
		if code, _ := errorCode(obj.Err); code == "NoSuchBucket" {
			return r.fail("check", fmt.Errorf("bucket %s does not exist", r.bucket))
		}
		if obj.Err != nil {
			return r.fail("check", obj.Err)
		}
		break
	}
	return nil
}

// has reports whether the object of key is there.
func (r *s3Remote) has(ctx context.Context, key string) (bool, error) {
	_, err := r.client.StatObject(ctx, r.bucket, r.key(key), minio.StatObjectOptions{})
	if notFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (r *s3Remote) HasEntries(ctx context.Context, fps []string) (map[string]bool, error) {
	out, err := r.hasKeys(ctx, "entries", fps, "fingerprint")
	if err != nil {
		return nil, r.fail("look up entries", err)
	}
	return out, nil
}

func (r *s3Remote) HasBlobs(ctx context.Context, shas []string) (map[string]bool, error) {
	out, err := r.hasKeys(ctx, "blobs", shas, "sha256")
	if err != nil {
		return nil, r.fail("look up blobs", err)
	}
	return out, nil
}

func (r *s3Remote) Entry(ctx context.Context, fp string) (*Entry, error) {
	if err := checkFingerprint(fp); err != nil {
		return nil, r.fail("read entry", err)
	}
	body, err := r.get(ctx, entryKey(fp))
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, r.fail("read entry "+fp, err)
	}
	defer body.Close()
	e, err := decodeEntry(body, fp)
	if err != nil {
		return nil, r.fail("read entry "+fp, err)
	}
	return e, nil
}

func (r *s3Remote) GetBlob(ctx context.Context, sha string, w io.Writer) error {
	if err := checkSHA(sha); err != nil {
		return r.fail("get blob", err)
	}
	body, err := r.get(ctx, blobKey(sha))
	if notFound(err) {
		err = missingError{"blob"}
	}
	if err != nil {
		return r.fail("get blob "+sha, err)
	}
	defer body.Close()
	b := buffers.Get().(*[copyBuffer]byte)
	defer buffers.Put(b)
	if _, err := io.CopyBuffer(w, struct{ io.Reader }{body}, b[:]); err != nil {
		return r.fail("get blob "+sha, err)
	}
	return nil
}

// get starts reading the object of key: one GET request, its body
// streamed as it comes (minio-go's Object runs a goroutine and passes
// each read through channels).
func (r *s3Remote) get(ctx context.Context, key string) (io.ReadCloser, error) {
	body, _, _, err := r.core.GetObject(ctx, r.bucket, r.key(key), minio.GetObjectOptions{})
	return body, err
}

func (r *s3Remote) PutBlob(ctx context.Context, sha string, size int64, src io.Reader) error {
	if err := checkSHA(sha); err != nil {
		return r.fail("put blob", err)
	}
	// A PUT is visible only once complete, a multipart upload only once
	// completed: the verifier fails either before its end when the
	// content is not sha's.
	body := newVerifier(src, sha, size)
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream", PartSize: partSize}
	var err error
	if size < partSize {
		err = r.put(ctx, blobKey(sha), body, size, sha, opts)
	} else {
		_, err = r.client.PutObject(ctx, r.bucket, r.key(blobKey(sha)), body, size, opts)
	}
	if err != nil {
		return r.fail("put blob "+sha, err)
	}
	return nil
}

func (r *s3Remote) PutEntry(ctx context.Context, e *Entry) error {
	ent, err := prepare(e)
	if err != nil {
		return r.fail("put entry", err)
	}
	data, err := ent.encode()
	if err == nil {
		sum := sha256.Sum256(data)
		err = r.put(ctx, entryKey(ent.Fingerprint), bytes.NewReader(data), int64(len(data)), hex.EncodeToString(sum[:]),
			minio.PutObjectOptions{ContentType: "application/json"})
	}
	if err != nil {
		return r.fail("put entry "+ent.Fingerprint, err)
	}
	return nil
}

// put stores body, size bytes whose SHA-256 is sha, as the object of key
// in one PUT request signed with that SHA-256: the server checks the
// content against it, and the client need not hash it again (minio-go
// signs each chunk of a body it does not know the hash of).
func (r *s3Remote) put(ctx context.Context, key string, body io.Reader, size int64, sha string, opts minio.PutObjectOptions) error {
	opts.DisableContentSha256 = true // sign with sha, not chunk by chunk
	_, err := r.core.PutObject(ctx, r.bucket, r.key(key), body, size, "", sha, opts)
	return err
}

func (r *s3Remote) ListEntries(ctx context.Context, fn func(fp string, modified time.Time) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prefix := r.key("v1/entries/")
	for obj := range r.client.ListObjects(ctx, r.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return r.fail("list entries", obj.Err)
		}
		shard, name, ok := strings.Cut(strings.TrimPrefix(obj.Key, prefix), "/")
		if !ok {
			continue
		}
		fp, ok := entryFromName(shard, name)
		if !ok {
			continue
		}
		if err := fn(fp, obj.LastModified); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return r.fail("list entries", err)
	}
	return nil
}

func (r *s3Remote) DeleteEntry(ctx context.Context, fp string) error {
	if err := checkFingerprint(fp); err != nil {
		return r.fail("delete entry", err)
	}
	if err := r.client.RemoveObject(ctx, r.bucket, r.key(entryKey(fp)), minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return r.fail("delete entry "+fp, err)
	}
	return nil
}

func (r *s3Remote) ListIndex(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prefix := r.key(indexPrefix)
	var names []string
	for obj := range r.client.ListObjects(ctx, r.bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if obj.Err != nil {
			return nil, r.fail("list the index", obj.Err)
		}
		if name := strings.TrimPrefix(obj.Key, prefix); ValidKey(name) {
			if names = append(names, name); len(names) > maxIndexSegments {
				break // more than a lookup reads
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, r.fail("list the index", err)
	}
	return names, nil
}

func (r *s3Remote) GetIndex(ctx context.Context, name string, w io.Writer) error {
	if err := checkSHA(name); err != nil {
		return r.fail("get index segment", err)
	}
	body, err := r.get(ctx, indexKey(name))
	if notFound(err) {
		err = missingError{"index segment"}
	}
	if err != nil {
		return r.fail("get index segment "+name, err)
	}
	defer body.Close()
	if _, err := io.Copy(w, struct{ io.Reader }{body}); err != nil {
		return r.fail("get index segment "+name, err)
	}
	return nil
}

func (r *s3Remote) PutIndex(ctx context.Context, name string, size int64, src io.Reader) error {
	if err := checkSHA(name); err != nil {
		return r.fail("put index segment", err)
	}
	err := r.put(ctx, indexKey(name), newVerifier(src, name, size), size, name,
		minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return r.fail("put index segment "+name, err)
	}
	return nil
}

func (r *s3Remote) DeleteIndex(ctx context.Context, name string) error {
	if err := checkSHA(name); err != nil {
		return r.fail("delete index segment", err)
	}
	if err := r.client.RemoveObject(ctx, r.bucket, r.key(indexKey(name)), minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return r.fail("delete index segment "+name, err)
	}
	return nil
}
