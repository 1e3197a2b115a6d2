package master

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"

	"github.com/voxform/voxform/audio"
)

// kept is the source as the analysis read it (decoded, mixed, resampled;
// before a mono source is duplicated), in a scratch file that the later
// passes read instead of decoding and resampling the source again: 8
// bytes a sample, each float64 as it was (little-endian), so that every
// pass reads exactly the samples the analysis read. A WAV file will not
// do: its float reader and audio.AppendSamples clamp to [-1, 1], and a
// resampled signal goes over full scale. The file is removed from its
// directory as soon as it is made (where the system allows) and closed
// with the mastering.
type kept struct {
	f        *os.File
	ch       int
	size     int64
	unlinked bool
}

// keepBuffer is the buffer of the scratch file's writer and readers.
const keepBuffer = 64 << 10

// newKept makes the scratch file in dir (the system's temporary
// directory for "") for samples of ch channels.
func newKept(dir string, ch int) (*kept, error) {
	f, err := os.CreateTemp(dir, "voxform-master-source-*.f64")
	if err != nil {
		return nil, err
	}
	k := &kept{f: f, ch: ch}
	k.unlinked = os.Remove(f.Name()) == nil
	return k, nil
}

// close closes and removes the scratch file.
func (k *kept) close() {
	k.f.Close()
	if !k.unlinked {
		os.Remove(k.f.Name())
	}
}

// open returns the kept samples as a chain of the profile's channels.
func (k *kept) open(ctx context.Context, channels int) *chain {
	r := &keptReader{r: bufio.NewReaderSize(io.NewSectionReader(k.f, 0, k.size), keepBuffer), ch: k.ch}
	return newChain(ctx, nil, r, channels)
}

// tee is a SampleSource that writes what it reads to a kept file. A
// failed write (a full disk) is not the mastering's error: it is kept in
// err, and the passes then read the source again.
type tee struct {
	src audio.SampleSource
	k   *kept
	w   *bufio.Writer
	b   []byte
	err error
}

func newTee(src audio.SampleSource, k *kept) *tee {
	return &tee{src: src, k: k, w: bufio.NewWriterSize(k.f, keepBuffer)}
}

func (t *tee) Channels() int { return t.src.Channels() }

func (t *tee) ReadSamples(dst []float64) (int, error) {
	n, err := t.src.ReadSamples(dst)
	if t.err == nil && n > 0 {
		t.b = t.b[:0]
		for _, v := range dst[:n] {
			t.b = binary.LittleEndian.AppendUint64(t.b, math.Float64bits(v))
		}
		_, t.err = t.w.Write(t.b)
	}
	return n, err
}

// finish flushes the file; the kept samples are then whole, or
// t.err says why not.
func (t *tee) finish() error {
	if t.err == nil {
		t.err = t.w.Flush()
	}
	if t.err == nil {
		t.k.size, t.err = t.k.f.Seek(0, io.SeekCurrent)
	}
	return t.err
}

// keptReader reads the samples of a kept file.
type keptReader struct {
	r  *bufio.Reader
	ch int
	b  []byte
}

func (r *keptReader) Channels() int { return r.ch }

func (r *keptReader) ReadSamples(dst []float64) (int, error) {
	n := len(dst) - len(dst)%r.ch
	if cap(r.b) < 8*n {
		r.b = make([]byte, 8*n)
	}
	got, err := io.ReadFull(r.r, r.b[:8*n])
	got /= 8
	for i := range got {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return got, err
}
