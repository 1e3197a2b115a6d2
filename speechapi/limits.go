package speechapi

import (
	"fmt"
	"io"
	"sync"
)

// Bounds on what the client accepts from a service or storage host, so
// that a hostile or broken answer ends in a *LimitError rather than in
// memory exhaustion. Each is far above what a real answer needs.
const (
	// MaxTranscriptBytes bounds a downloaded transcript JSON (and the
	// messages of one realtime transcription together). A 4-hour call,
	// the longest a batch job takes, gives a transcript of a few
	// megabytes.
	MaxTranscriptBytes = 256 << 20
	// MaxSSELineBytes bounds one line (and one event's data) of a
	// synthesis event stream. A chunk carries about a second of audio in
	// base64: at 48 kHz, 8 channels of 32-bit samples that is 2 MiB.
	MaxSSELineBytes = 8 << 20
	// MaxSSEOggLineBytes bounds the line of an ogg synthesis, which the
	// service sends as one chunk holding the whole file
	// (speech-synthesis.md, endpoint 2): 48 MiB of Opus, more than an
	// hour and a half of mono speech at 64 kbit/s.
	MaxSSEOggLineBytes = 64 << 20
	// MaxRealtimeMessageBytes bounds one message of a realtime
	// transcription (a transcript message is a few hundred bytes).
	MaxRealtimeMessageBytes = 1 << 20
	// MaxFilesListingBytes bounds the answers of one job's files listing,
	// all pages together: at most MaxJobFiles records of a few kilobytes.
	MaxFilesListingBytes = 16 << 20
	// MaxJSONBytes bounds any other JSON answer (an older batch status
	// with ten long transcripts stays far below).
	MaxJSONBytes = 64 << 20
	// MaxEmbeddingBytes bounds a speaker embedding (768 values: a few
	// kilobytes).
	MaxEmbeddingBytes = 16 << 20
)

// LimitError is an answer larger than the client accepts: a transcript,
// an event-stream line, a realtime message, a JSON answer, or a files
// listing with more files or pages than a job can hold. It names the host
// and the limit and is not temporary: the same answer would exceed it
// again.
type LimitError struct {
	// What is the answer, e.g. "transcript download".
	What string
	// Host is the host (and port) that sent it.
	Host string
	// Limit is the bound, e.g. "256 MiB".
	Limit string
	// Reason, when set, says what is wrong instead of "is over the limit".
	Reason string
}

// Error names what, the host and the limit.
func (e *LimitError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%s from %s %s (limit: %s)", e.What, e.Host, e.Reason, e.Limit)
	}
	return fmt.Sprintf("%s from %s is over the limit of %s", e.What, e.Host, e.Limit)
}

// sizeText writes a byte count as the constants above are written.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// cappedReader reads at most max bytes of r; when r holds more, it reads
// one byte past the cap to know so, and fails with a *LimitError.
type cappedReader struct {
	r    io.Reader
	left int64
	err  *LimitError
	n    int64 // bytes read
}

// newCappedReader bounds r to max bytes; what and host name the answer.
func newCappedReader(r io.Reader, max int64, what, host string) *cappedReader {
	return &cappedReader{r: r, left: max, err: &LimitError{What: what, Host: host, Limit: sizeText(max)}}
}

// answerLimit bounds the JSON answers of one call, or of several calls
// together (the pages of a listing).
type answerLimit struct {
	max  int64
	used int64
	what string // names the answers in a *LimitError
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.left <= 0 {
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, c.err
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.n += int64(n)
	return n, err
}

// copyBuffers are the buffers answers and sources are copied through, of
// io.Copy's size: one for each copy in flight rather than a new one for
// each synthesis (32 KiB a synthesis, 3.2 GB for an apply of 100,000).
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyBody is io.Copy through a pooled buffer.
func copyBody(w io.Writer, r io.Reader) (int64, error) {
	b := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(b)
	return io.CopyBuffer(w, r, *b)
}
