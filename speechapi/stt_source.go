package speechapi

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Source is one audio file (or ZIP archive) to upload. Open is called once
// per attempt, so a Source from a file survives retries; one from a plain
// reader allows a single attempt.
type Source struct {
	// Name is the file name sent in the multipart part and shown in errors.
	Name string
	// Path is the local path when the source is a file ("" otherwise).
	Path string
	// Size is the size in bytes, or -1 when unknown.
	Size int64
	// Open returns the content from its start.
	Open func() (io.ReadCloser, error)

	oneShot *atomic.Bool // set for reader sources once opened
}

// FileSource returns a Source reading the file at path.
func FileSource(path string) (Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Source{}, fmt.Errorf("audio source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Source{}, fmt.Errorf("audio source %s: not a regular file", path)
	}
	return Source{Name: filepath.Base(path), Path: path, Size: fi.Size(),
		Open: func() (io.ReadCloser, error) { return os.Open(path) }}, nil
}

// ReaderSource returns a Source streaming r once, under the file name
// name; size may be -1 when unknown. A request using it is not retried
// after its body has started.
func ReaderSource(name string, r io.Reader, size int64) Source {
	used := &atomic.Bool{}
	return Source{Name: name, Size: size, oneShot: used, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(r), nil
	}}
}

var errNotRereadable = errors.New("the audio reader was already sent once and cannot be re-read for a retry")

// part is one field or file of a multipart body.
type part struct {
	name, value, contentType string
	file                     *Source
}

// formBody returns a body for newRequest that streams parts through a
// pipe on each attempt, and its content type. Nothing is read until the
// transport reads the body.
func formBody(parts []part) (func() (io.Reader, error), string) {
	boundary := multipart.NewWriter(io.Discard).Boundary()
	return func() (io.Reader, error) {
		for _, p := range parts {
			if p.file != nil && p.file.oneShot != nil && p.file.oneShot.Load() {
				return nil, errNotRereadable
			}
		}
		return &lazyBody{start: func(pw *io.PipeWriter) {
			pw.CloseWithError(writeParts(pw, boundary, parts))
		}}, nil
	}, "multipart/form-data; boundary=" + boundary
}

func writeParts(w io.Writer, boundary string, parts []part) error {
	mw := multipart.NewWriter(w)
	if err := mw.SetBoundary(boundary); err != nil {
		return err
	}
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := fmt.Sprintf(`form-data; name="%s"`, escapeQuotes(p.name))
		if p.file != nil {
			disp += fmt.Sprintf(`; filename="%s"`, escapeQuotes(p.file.Name))
			h.Set("Content-Type", contentTypeOf(p.file.Name))
		} else if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		h.Set("Content-Disposition", disp)
		pw, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if p.file == nil {
			if _, err := io.WriteString(pw, p.value); err != nil {
				return err
			}
			continue
		}
		if err := copySource(pw, p.file); err != nil {
			return err
		}
	}
	return mw.Close()
}

func copySource(w io.Writer, s *Source) error {
	if s.oneShot != nil && s.oneShot.Swap(true) {
		return errNotRereadable
	}
	rc, err := s.Open()
	if err != nil {
		return fmt.Errorf("open %s: %w", s.Name, err)
	}
	defer rc.Close()
	n, err := copyBody(w, rc)
	if err != nil {
		return fmt.Errorf("read %s: %w", s.Name, err)
	}
	if s.Size >= 0 && n != s.Size {
		return fmt.Errorf("read %s: %d bytes, expected %d (the file changed)", s.Name, n, s.Size)
	}
	return nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }

func contentTypeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav":
		return "audio/wav"
	case ".mp3":
		return "audio/mpeg"
	case ".ogg", ".opus":
		return "audio/ogg"
	case ".flac":
		return "audio/flac"
	case ".zip":
		return "application/zip"
	case ".m4a", ".mp4":
		return "audio/mp4"
	}
	return "application/octet-stream"
}

// lazyBody starts its producer on the first Read, so that a body made and
// discarded unread (net/http may take one from GetBody and never send it)
// consumes nothing.
type lazyBody struct {
	start func(*io.PipeWriter)
	mu    sync.Mutex
	pr    *io.PipeReader
}

func (l *lazyBody) reader() *io.PipeReader {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pr == nil {
		pr, pw := io.Pipe()
		l.pr = pr
		go l.start(pw)
	}
	return l.pr
}

// Read starts the producer on first use and reads from it.
func (l *lazyBody) Read(p []byte) (int, error) { return l.reader().Read(p) }

// Close stops the producer, if it started.
func (l *lazyBody) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pr != nil {
		return l.pr.Close()
	}
	return nil
}
