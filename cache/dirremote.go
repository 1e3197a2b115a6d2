package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/voxform/voxform/owned"
)

// dirRemote is a remote cache in a directory (a shared disk, or a test's
// temporary directory): the layout of the local cache, every file written
// through owned's atomic writes, so a writer killed midway leaves only a
// temporary file that no reader takes for an entry or a blob.
type dirRemote struct {
	dir string
}

func (r *dirRemote) String() string { return "file://" + r.dir }

// path is the file of a slash-separated key.
func (r *dirRemote) path(key string) string { return filepath.Join(r.dir, filepath.FromSlash(key)) }

// fail names the remote in an error of op.
func (r *dirRemote) fail(op string, err error) error {
	return fmt.Errorf("%s in remote cache %s: %w", op, r, err)
}

func (r *dirRemote) Check(ctx context.Context) error {
	st, err := os.Stat(r.dir)
	if err != nil {
		return r.fail("check", err)
	}
	if !st.IsDir() {
		return r.fail("check", errors.New("not a directory"))
	}
	return nil
}

// has reports whether key names a regular file.
func (r *dirRemote) has(key string) (bool, error) {
	st, err := os.Lstat(r.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return st.Mode().IsRegular(), nil
}

func (r *dirRemote) HasEntries(ctx context.Context, fps []string) (map[string]bool, error) {
	out, err := hasAll(ctx, fps, "fingerprint", func(ctx context.Context, fp string) (bool, error) {
		return r.has(entryKey(fp))
	})
	if err != nil {
		return nil, r.fail("look up entries", err)
	}
	return out, nil
}

func (r *dirRemote) HasBlobs(ctx context.Context, shas []string) (map[string]bool, error) {
	out, err := hasAll(ctx, shas, "sha256", func(ctx context.Context, sha string) (bool, error) {
		return r.has(blobKey(sha))
	})
	if err != nil {
		return nil, r.fail("look up blobs", err)
	}
	return out, nil
}

func (r *dirRemote) Entry(ctx context.Context, fp string) (*Entry, error) {
	if err := checkFingerprint(fp); err != nil {
		return nil, r.fail("read entry", err)
	}
	f, err := openRegular(r.path(entryKey(fp)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, r.fail("read entry "+fp, err)
	}
	defer f.Close()
	e, err := decodeEntry(f, fp)
	if err != nil {
		return nil, r.fail("read entry "+fp, err)
	}
	return e, nil
}

func (r *dirRemote) GetBlob(ctx context.Context, sha string, w io.Writer) error {
	if err := checkSHA(sha); err != nil {
		return r.fail("get blob", err)
	}
	f, err := openRegular(r.path(blobKey(sha)))
	if err != nil {
		return r.fail("get blob "+sha, err)
	}
	defer f.Close()
	if _, err := io.Copy(w, readerWithContext(ctx, f)); err != nil {
		return r.fail("get blob "+sha, err)
	}
	return nil
}

func (r *dirRemote) PutBlob(ctx context.Context, sha string, size int64, src io.Reader) error {
	if err := checkSHA(sha); err != nil {
		return r.fail("put blob", err)
	}
	err := r.write(blobKey(sha), func(w io.Writer) error {
		_, err := io.Copy(w, readerWithContext(ctx, newVerifier(src, sha, size)))
		return err
	})
	if err != nil {
		return r.fail("put blob "+sha, err)
	}
	return nil
}

func (r *dirRemote) PutEntry(ctx context.Context, e *Entry) error {
	ent, err := prepare(e)
	if err != nil {
		return r.fail("put entry", err)
	}
	data, err := ent.encode()
	if err == nil {
		err = r.write(entryKey(ent.Fingerprint), func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	}
	if err != nil {
		return r.fail("put entry "+ent.Fingerprint, err)
	}
	return nil
}

// write writes the file of key atomically, making its directory.
func (r *dirRemote) write(key string, fn func(w io.Writer) error) error {
	p := r.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return owned.WriteFile(p, 0o644, fn)
}

func (r *dirRemote) ListEntries(ctx context.Context, fn func(fp string, modified time.Time) error) error {
	root := r.path("v1/entries")
	shards, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return r.fail("list entries", err)
	}
	for _, s := range shards {
		if !s.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, s.Name()))
		if err != nil {
			return r.fail("list entries", err)
		}
		for _, f := range files {
			fp, ok := entryFromName(s.Name(), f.Name())
			if !ok || !f.Type().IsRegular() {
				continue
			}
			info, err := f.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				return r.fail("list entries", err)
			}
			if err := fn(fp, info.ModTime()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *dirRemote) DeleteEntry(ctx context.Context, fp string) error {
	if err := checkFingerprint(fp); err != nil {
		return r.fail("delete entry", err)
	}
	if err := os.Remove(r.path(entryKey(fp))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r.fail("delete entry "+fp, err)
	}
	return nil
}

func (r *dirRemote) ListIndex(ctx context.Context) ([]string, error) {
	files, err := os.ReadDir(r.path(indexPrefix))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, r.fail("list the index", err)
	}
	var names []string
	for _, f := range files {
		if ValidKey(f.Name()) && f.Type().IsRegular() {
			if names = append(names, f.Name()); len(names) > maxIndexSegments {
				break // more than a lookup reads
			}
		}
	}
	return names, nil
}

func (r *dirRemote) GetIndex(ctx context.Context, name string, w io.Writer) error {
	if err := checkSHA(name); err != nil {
		return r.fail("get index segment", err)
	}
	f, err := openRegular(r.path(indexKey(name)))
	if err != nil {
		return r.fail("get index segment "+name, err)
	}
	defer f.Close()
	if _, err := io.Copy(w, readerWithContext(ctx, f)); err != nil {
		return r.fail("get index segment "+name, err)
	}
	return nil
}

func (r *dirRemote) PutIndex(ctx context.Context, name string, size int64, src io.Reader) error {
	if err := checkSHA(name); err != nil {
		return r.fail("put index segment", err)
	}
	err := r.write(indexKey(name), func(w io.Writer) error {
		_, err := io.Copy(w, readerWithContext(ctx, newVerifier(src, name, size)))
		return err
	})
	if err != nil {
		return r.fail("put index segment "+name, err)
	}
	return nil
}

func (r *dirRemote) DeleteIndex(ctx context.Context, name string) error {
	if err := checkSHA(name); err != nil {
		return r.fail("delete index segment", err)
	}
	if err := os.Remove(r.path(indexKey(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r.fail("delete index segment "+name, err)
	}
	return nil
}

// readerWithContext stops reading r once ctx is done.
func readerWithContext(ctx context.Context, r io.Reader) io.Reader {
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
