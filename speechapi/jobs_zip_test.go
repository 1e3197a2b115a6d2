package speechapi_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// TestJobZipLimitsAtTheDocumentedSizes builds ZIP archives of exactly the
// documented limits and one byte over (sparse files: the zeros cost no
// disk): 50 MB compressed, 200 MB decompressed. The client uploads those at
// the limits, which the emulator accepts, and refuses those over them
// before sending anything; the emulator refuses those over them when they
// are sent anyway.
//
// conformance: BJ-096, BJ-097
func TestJobZipLimitsAtTheDocumentedSizes(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	wav := wavBytes(t, 71, 0.5, 8000, kindSpeech)
	tests := []struct {
		name  string
		build func(t *testing.T, path string, n int64, wav []byte)
		n     int64
		local string // the client's refusal; "" when it uploads
		code  string // in the emulator's 400 to the same archive sent raw
	}{
		{"50 MB compressed", storedZip, speechapi.MaxZipBytes, "", ""},
		{"a byte over 50 MB compressed", storedZip, speechapi.MaxZipBytes + 1, "larger than the 50 MB ZIP limit", "is larger than 50 MB"},
		{"200 MB decompressed", deflatedZip, speechapi.MaxZipExpandedBytes, "", ""},
		{"a byte over 200 MB decompressed", deflatedZip, speechapi.MaxZipExpandedBytes + 1, "expands to more than the 200 MB ZIP limit", "ZIP_TOO_LARGE"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("calls-%d.zip", i))
			tc.build(t, path, tc.n, wav)
			src, err := speechapi.FileSource(path)
			if err != nil {
				t.Fatal(err)
			}
			sent := e.stats(t).Requests["POST /stt/v3/batch/jobs"]
			created, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
			if tc.local == "" {
				if err != nil || created.TotalFilesAccepted == nil || *created.TotalFilesAccepted != 1 {
					t.Fatalf("create with the archive at the limit: %+v %v", created, err)
				}
				return
			}
			var fe *speechapi.FileError
			var se *speechapi.Error
			if !errors.As(err, &fe) || fe.Path != src.Name || !strings.Contains(fe.Message, tc.local) || errors.As(err, &se) {
				t.Errorf("client: %v, want a refusal naming %s: %s", err, src.Name, tc.local)
			}
			if got := e.stats(t).Requests["POST /stt/v3/batch/jobs"]; got != sent {
				t.Errorf("client: the archive over the limit was sent (%d creates, %d before)", got, sent)
			}
			status, body := rawUpload(t, e.http.URL+"/stt/v3/batch/jobs", path)
			if status != http.StatusBadRequest || !strings.Contains(body, tc.code) {
				t.Errorf("emulator: the archive over the limit sent raw: %d %s, want 400 %s", status, body, tc.code)
			}
		})
	}
}

// storedZip writes a ZIP archive of exactly n bytes: wav as a.wav, then
// stored members of zeros (10 MB each at most, the per-file limit) in
// sparse holes. Its decompressed size is about n.
func storedZip(t *testing.T, path string, n int64, wav []byte) {
	t.Helper()
	const member = speechapi.MaxJobFileBytes
	sizes := func(rest int64) []int64 {
		var out []int64
		for ; rest > member; rest -= member {
			out = append(out, member)
		}
		return append(out, rest)
	}
	// The archive's overhead does not depend on the sizes: write it once,
	// then again with the padding short by what the first one overshot.
	pad := n - int64(len(wav))
	for range 2 {
		got := writeZip(t, path, wav, sizes(pad), nil)
		if got == n {
			return
		}
		pad -= got - n
	}
	t.Fatalf("could not make a ZIP archive of %d bytes", n)
}

// deflatedZip writes a ZIP archive that decompresses to exactly n bytes:
// wav as a.wav, then deflated members of zeros of 10 MB at most.
func deflatedZip(t *testing.T, path string, n int64, wav []byte) {
	t.Helper()
	const member = speechapi.MaxJobFileBytes
	var sizes []int64
	for rest := n - int64(len(wav)); rest > 0; rest -= member {
		sizes = append(sizes, min(rest, member))
	}
	compressed := map[int64][]byte{}
	for _, s := range sizes {
		if compressed[s] == nil {
			compressed[s] = deflateZeros(t, s)
		}
	}
	writeZip(t, path, wav, sizes, compressed)
}

// writeZip writes wav as a.wav and a member of zeros per size, deflated
// from compressed when it holds the size, else stored as a sparse hole;
// it returns the archive's size.
func writeZip(t *testing.T, path string, wav []byte, sizes []int64, compressed map[int64][]byte) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hw := &holeWriter{f: f}
	zw := zip.NewWriter(hw)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "a.wav", Method: zip.Store})
	if err == nil {
		_, err = w.Write(wav)
	}
	for i, size := range sizes {
		if err != nil {
			break
		}
		h := &zip.FileHeader{Name: fmt.Sprintf("pad-%02d.bin", i), Method: zip.Store, CRC32: zeroCRC(size),
			CompressedSize64: uint64(size), UncompressedSize64: uint64(size)}
		data := io.LimitReader(zeroReader{}, size)
		if c, ok := compressed[size]; ok {
			h.Method, h.CompressedSize64, data = zip.Deflate, uint64(len(c)), bytes.NewReader(c)
		}
		if w, err = zw.CreateRaw(h); err == nil {
			_, err = io.CopyBuffer(w, data, make([]byte, 1<<20))
		}
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Truncate(hw.n) // a hole at the very end still counts
	}
	if err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return hw.n
}

// holeWriter writes to a file, seeking over blocks of zeros instead of
// writing them, so that they make a sparse hole.
type holeWriter struct {
	f *os.File
	n int64
}

func (w *holeWriter) Write(p []byte) (int, error) {
	var err error
	if bytes.Count(p, []byte{0}) == len(p) {
		_, err = w.f.Seek(int64(len(p)), io.SeekCurrent)
	} else {
		_, err = w.f.Write(p)
	}
	if err != nil {
		return 0, err
	}
	w.n += int64(len(p))
	return len(p), nil
}

// zeroCRC is the CRC-32 of n zero bytes.
func zeroCRC(n int64) uint32 {
	h := crc32.NewIEEE()
	_, _ = io.CopyBuffer(h, io.LimitReader(zeroReader{}, n), make([]byte, 1<<20))
	return h.Sum32()
}

// deflateZeros is n zero bytes deflated: a few kilobytes.
func deflateZeros(t *testing.T, n int64) []byte {
	t.Helper()
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyBuffer(fw, io.LimitReader(zeroReader{}, n), make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rawUpload creates a batch job from the file at path as a client other
// than speechapi would, streaming it, and returns the status and body.
func rawUpload(t *testing.T, url, path string) (int, string) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		pw.CloseWithError(func() error {
			h := textproto.MIMEHeader{"Content-Disposition": {`form-data; name="config"`}, "Content-Type": {"application/json"}}
			w, err := mw.CreatePart(h)
			if err != nil {
				return err
			}
			if _, err := io.WriteString(w, `{"model": "stt-v2.5", "language_code": "hi-IN"}`); err != nil {
				return err
			}
			if w, err = mw.CreateFormFile("files", filepath.Base(path)); err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(w, f); err != nil {
				return err
			}
			return mw.Close()
		}())
	}()
	req, err := http.NewRequest(http.MethodPost, url, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key-ID", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	pr.Close() // the emulator may answer before it read everything
	return resp.StatusCode, string(b)
}
