package recog

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// upload is one file part of a multipart request, saved to a temp file so
// that it can be decoded without holding it in memory.
type upload struct {
	Name string // the part's file name
	Path string
	Size int64
	// ContentType is the part's Content-Type header.
	ContentType string
}

// form is a parsed multipart/form-data request.
type form struct {
	fields map[string][]string
	types  map[string]string // Content-Type of each field part, when given
	files  map[string][]upload
	dir    string
	total  int64 // bytes of the body read
}

// received is the form's text fields, for Options.Received.
func (f *form) received() map[string]any {
	out := make(map[string]any, len(f.fields))
	for k, v := range f.fields {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

func (f *form) value(name string) (string, bool) {
	v, ok := f.fields[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

func (f *form) cleanup() {
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// tooLargeError reports a part or body over a limit.
type tooLargeError struct {
	What  string
	Limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", e.What, megabytes(e.Limit))
}

func megabytes(n int64) string { return strconv.FormatInt(n/1_000_000, 10) + " MB" }

var errNotMultipart = errors.New("the request must be multipart/form-data")

// maxField bounds a non-file form field.
const maxField = 64 << 10

// readForm streams a multipart body to temp files. maxFile bounds each file
// part, maxBody the whole body (0: no bound).
func readForm(r *http.Request, maxFile, maxBody int64) (*form, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, errNotMultipart
	}
	if maxBody > 0 && r.ContentLength > maxBody {
		return nil, &tooLargeError{What: "the request", Limit: maxBody} // refused before reading
	}
	body := r.Body
	if maxBody > 0 {
		body = http.MaxBytesReader(nil, r.Body, maxBody)
		r.Body = body
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errNotMultipart
	}
	dir, err := os.MkdirTemp("", "voxform-emu-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	f := &form{fields: map[string][]string{}, types: map[string]string{}, files: map[string][]upload{}, dir: dir}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			f.cleanup()
			return nil, bodyError(err, maxBody)
		}
		if err := f.add(p.FormName(), p.FileName(), p.Header.Get("Content-Type"), p, maxFile); err != nil {
			f.cleanup()
			return nil, bodyError(err, maxBody)
		}
	}
}

func bodyError(err error, maxBody int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &tooLargeError{What: "the request", Limit: maxBody}
	}
	return err
}

func (f *form) add(name, filename, ctype string, r io.Reader, maxFile int64) error {
	if filename == "" {
		b, err := io.ReadAll(io.LimitReader(r, maxField+1))
		if err != nil {
			return fmt.Errorf("read field %s: %w", name, err)
		}
		if len(b) > maxField {
			return &tooLargeError{What: "field " + name, Limit: maxField}
		}
		f.fields[name] = append(f.fields[name], string(b))
		f.types[name] = ctype
		return nil
	}
	out, err := os.CreateTemp(f.dir, "part-*"+filepath.Ext(filepath.Base(filename)))
	if err != nil {
		return fmt.Errorf("save %s: %w", filename, err)
	}
	defer out.Close()
	src := r
	if maxFile > 0 {
		src = io.LimitReader(r, maxFile+1)
	}
	n, err := io.Copy(out, src)
	if err != nil {
		return fmt.Errorf("read file %s: %w", filename, err)
	}
	if maxFile > 0 && n > maxFile {
		return &tooLargeError{What: "file " + filename, Limit: maxFile}
	}
	f.files[name] = append(f.files[name], upload{Name: filename, Path: out.Name(), Size: n, ContentType: ctype})
	return nil
}

// analyzePath analyzes a saved file.
func (s *service) analyzePath(path string) (*analysis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return analyze(s.env, f)
}
