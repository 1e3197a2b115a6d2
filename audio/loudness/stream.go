package loudness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/voxform/voxform/audio"
)

// LoudnessWriter measures the loudness of an audio file from its bytes as
// they are written elsewhere: a writer of the file passes each piece it
// appends through Write, so the file is measured in the pass that writes
// it instead of being read again. The bytes go through a pipe to a
// goroutine that decodes them as measureLoudness or MeasureLoudnessReader
// would the finished file; Write waits while the decoder catches up, so
// memory stays fixed (a pipe, a 64 KB window of the file's start for the
// decoders that look back at the header, and the meter).
//
// Write never fails: a file that cannot be measured (a format without a
// decoder, bytes that do not decode) only makes Result return the error,
// and the rest of the bytes are dropped.
type LoudnessWriter struct {
	pw      *io.PipeWriter
	done    chan struct{}
	res     Loudness
	err     error
	stopped bool
}

// errMeasured ends a pipe whose reader is done, so that the writer's next
// Write returns at once instead of waiting for a reader that has gone.
var errMeasured = errors.New("loudness measured")

// errDropped is the result of a LoudnessWriter that was aborted.
var errDropped = errors.New("measure loudness: abandoned")

// lookBack is how much of the start of a file is kept for the decoders'
// seeks back (sniffing the container, then reading its header).
const lookBack = 64 << 10

// heads are buffers of lookBack bytes for lookBackReader, reused from one
// measurement to the next.
var heads = sync.Pool{New: func() any { return make([]byte, 0, lookBack) }}

// NewLoudnessWriter starts measuring a file of headerless audio in format
// *raw, or, with raw nil, a file in a container MeasureLoudnessReader
// recognises. The measurement stops when ctx is done.
func NewLoudnessWriter(ctx context.Context, raw *audio.Format) *LoudnessWriter {
	pr, pw := io.Pipe()
	w := &LoudnessWriter{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		if raw != nil {
			w.res, w.err = measureLoudness(ctx, pr, *raw)
		} else {
			lb := &lookBackReader{r: pr, head: heads.Get().([]byte)[:0]}
			w.res, w.err = MeasureLoudnessReader(ctx, lb)
			heads.Put(lb.head[:0])
		}
		pr.CloseWithError(errMeasured)
	}()
	return w
}

// Write passes p to the measurement. It always reports len(p) written.
func (w *LoudnessWriter) Write(p []byte) (int, error) {
	if w.stopped {
		return len(p), nil
	}
	if _, err := w.pw.Write(p); err != nil {
		w.stopped = true
	}
	return len(p), nil
}

// Result ends the file and returns its loudness: the error of a file that
// could not be measured (a *NoDecoderError for a format voxform cannot
// decode).
func (w *LoudnessWriter) Result() (Loudness, error) {
	w.pw.Close()
	<-w.done
	w.stopped = true
	return w.res, w.err
}

// Abort abandons the measurement and waits for its goroutine to end.
func (w *LoudnessWriter) Abort() {
	w.pw.CloseWithError(errDropped)
	<-w.done
	w.stopped = true
}

// lookBackReader is a reader of a stream that can seek back within its
// first lookBack bytes, or forward anywhere: enough for the container
// decoders, which sniff the first bytes and re-read their header before
// reading on.
type lookBackReader struct {
	r    io.Reader
	head []byte // the first bytes of the stream, up to lookBack
	pos  int64  // the reading position
	read int64  // bytes taken from r
}

func (l *lookBackReader) Read(p []byte) (int, error) {
	if l.pos < int64(len(l.head)) {
		n := copy(p, l.head[l.pos:])
		l.pos += int64(n)
		return n, nil
	}
	if l.pos < l.read {
		return 0, fmt.Errorf("measure loudness: seek back beyond the first %d bytes", lookBack)
	}
	for l.read < l.pos { // a seek forward: skip, keeping what the head lacks
		var buf [4 << 10]byte
		n, err := l.r.Read(buf[:min(l.pos-l.read, int64(len(buf)))])
		l.keep(buf[:n])
		if err != nil {
			return 0, err
		}
	}
	n, err := l.r.Read(p)
	l.keep(p[:n])
	l.pos += int64(n)
	return n, err
}

// keep counts p, taken from r, and adds it to the head while the head is
// all of the stream read so far and shorter than lookBack.
func (l *lookBackReader) keep(p []byte) {
	if int64(len(l.head)) == l.read {
		if k := min(int64(len(p)), lookBack-l.read); k > 0 {
			l.head = append(l.head, p[:k]...)
		}
	}
	l.read += int64(len(p))
}

// Seek moves the reading position; the end of the stream is not known.
func (l *lookBackReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += l.pos
	default:
		return l.pos, errors.New("measure loudness: cannot seek from the end of a stream")
	}
	if offset < 0 {
		return l.pos, errors.New("measure loudness: seek before the start")
	}
	l.pos = offset
	return offset, nil
}
