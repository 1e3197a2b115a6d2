package speechapi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one dispatched server-sent event. Data stays valid until the
// next call to Next.
type sseEvent struct {
	Name string
	Data []byte
}

// sseReader parses a text/event-stream per the HTML living standard:
// lines end in LF, CRLF or CR; ":" starts a comment; "field: value" with
// one optional space; several data lines join with LF; a blank line
// dispatches the event.
//
// A chunk carries base64 audio on one line, far longer than
// bufio.Scanner's 64 KiB, so lines and events are bounded by max
// (MaxSSELineBytes unless the caller says otherwise). An event's text is
// held once: the usual event of one data line takes over the line's
// buffer instead of copying it, and the two buffers are reused from
// event to event.
type sseReader struct {
	r       *bufio.Reader
	max     int
	line    []byte
	name    string
	data    []byte
	hasData bool
	eof     bool
	partial bool // the stream ended inside a line
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: MaxSSELineBytes}
}

// errSSELineTooLong reports a line or event beyond the reader's max.
var errSSELineTooLong = errors.New("sse line or event too long")

// Next returns the next event, or io.EOF when the stream ends. An event
// with data whose lines were all terminated is dispatched at EOF even
// without its blank line; a stream cut inside a line dispatches nothing
// more.
func (s *sseReader) Next() (*sseEvent, error) {
	for {
		line, err := s.readLine()
		if err == io.EOF {
			if s.hasData && !s.partial {
				return s.dispatch(), nil
			}
			s.hasData, s.name = false, ""
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if s.hasData || s.name != "" {
				return s.dispatch(), nil
			}
			continue
		}
		if err := s.field(line); err != nil {
			return nil, err
		}
	}
}

func (s *sseReader) dispatch() *sseEvent {
	ev := &sseEvent{Name: s.name, Data: bytes.TrimSuffix(s.data, []byte("\n"))}
	s.name, s.hasData = "", false
	s.data = s.data[:0] // reused: the caller is done with ev before Next
	return ev
}

func (s *sseReader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "event":
		s.name = string(value)
	case "data":
		if len(s.data)+len(value) > s.max {
			return errSSELineTooLong
		}
		if !s.hasData {
			// The line's buffer becomes the data, the old data buffer the
			// next line's: no copy of a chunk's text.
			n := copy(line, value)
			s.data, s.line = append(line[:n], '\n'), s.data[:0]
		} else {
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
		}
		s.hasData = true
	}
	return nil // id, retry and unknown fields are ignored
}

// readLine returns the next line without its terminator. At the end of
// the stream it returns io.EOF, dropping an unterminated last line: a
// stream cut mid-line must not yield half an event.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if s.eof {
			return nil, io.EOF
		}
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err != nil {
				if err == io.EOF {
					s.eof, s.partial = true, len(s.line) > 0
					return nil, io.EOF
				}
				return nil, err
			}
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			if len(s.line)+len(buf) > s.max {
				return nil, errSSELineTooLong
			}
			s.line = append(grow(s.line, len(buf)), buf...)
			_, _ = s.r.Discard(len(buf))
			continue
		}
		if len(s.line)+i > s.max {
			return nil, errSSELineTooLong
		}
		s.line = append(s.line, buf[:i]...)
		_, _ = s.r.Discard(i + 1)
		if buf[i] == '\r' {
			if nb, err := s.r.Peek(1); err == nil && nb[0] == '\n' {
				_, _ = s.r.Discard(1)
			}
		}
		return s.line, nil
	}
}

// grow makes room for n more bytes in b, doubling its capacity: a long
// line, read 64 KiB at a time, is moved a few times rather than at every
// piece.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n, 64<<10))
	copy(nb, b)
	return nb
}

// chunkOrder checks that chunk_index values run 1, 2, 3, ... (a stream
// starting at 0 is accepted and then must run on from 0).
type chunkOrder struct {
	last int
	seen bool
}

// next checks the index of the next chunk.
func (o *chunkOrder) next(i int, what string) error {
	switch {
	case !o.seen && (i == 0 || i == 1):
	case !o.seen:
		return &IncompleteError{What: what, Reason: fmt.Sprintf("first chunk has chunk_index %d: chunks before it are missing", i)}
	case i == o.last:
		return &IncompleteError{What: what, Reason: fmt.Sprintf("chunk_index %d arrived twice", i)}
	case i != o.last+1:
		return &IncompleteError{What: what, Reason: fmt.Sprintf("chunk_index %d followed %d: chunks are missing or out of order", i, o.last)}
	}
	o.last, o.seen = i, true
	return nil
}

// final checks the chunk_index of a completion message: the last chunk's
// index or the one after it.
func (o *chunkOrder) final(i int, what string) error {
	if !o.seen || i == o.last || i == o.last+1 {
		return nil
	}
	if i > o.last+1 {
		return &IncompleteError{What: what, Reason: fmt.Sprintf("completion has chunk_index %d but the last chunk was %d: chunks are missing", i, o.last)}
	}
	return &IncompleteError{What: what, Reason: fmt.Sprintf("completion has chunk_index %d, before the last chunk %d", i, o.last)}
}
