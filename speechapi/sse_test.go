package speechapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllEvents parses a whole stream.
func readAllEvents(r io.Reader) ([]sseEvent, error) {
	s := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, sseEvent{Name: ev.Name, Data: bytes.Clone(ev.Data)})
	}
}

// conformance: TTS-069
func TestSSEReader(t *testing.T) {
	long := strings.Repeat("QUJD", 50000) // a 200,000-byte line
	cases := []struct {
		name, in string
		want     []sseEvent
	}{
		{"lf", "event: start\ndata: {}\n\nevent: chunk\ndata: x\n\n", []sseEvent{{"start", []byte("{}")}, {"chunk", []byte("x")}}},
		{"crlf", "event: start\r\ndata: {}\r\n\r\nevent: chunk\r\ndata: x\r\n\r\n", []sseEvent{{"start", []byte("{}")}, {"chunk", []byte("x")}}},
		{"cr", "event: a\rdata: 1\r\revent: b\rdata: 2\r\r", []sseEvent{{"a", []byte("1")}, {"b", []byte("2")}}},
		{"multi-line data", "event: chunk\ndata: {\"a\":\ndata: 1}\n\n", []sseEvent{{"chunk", []byte("{\"a\":\n1}")}}},
		{"comments and ids", ": keep-alive\nid: 7\nretry: 100\nevent: x\ndata: y\n\n", []sseEvent{{"x", []byte("y")}}},
		{"no space after colon", "event:x\ndata:y\n\n", []sseEvent{{"x", []byte("y")}}},
		{"two spaces keep one", "data:  y\n\n", []sseEvent{{"", []byte(" y")}}},
		{"bare data field", "event: x\ndata\ndata\n\n", []sseEvent{{"x", []byte("\n")}}},
		{"blank lines between", "\n\n\nevent: x\ndata: y\n\n\n", []sseEvent{{"x", []byte("y")}}},
		{"long line", "event: chunk\ndata: " + long + "\n\n", []sseEvent{{"chunk", []byte(long)}}},
		{"terminated event at eof", "event: complete\ndata: {}\n", []sseEvent{{"complete", []byte("{}")}}},
		{"cut mid-line at eof", "event: chunk\ndata: x\n\nevent: complete\ndata: {\"chu", []sseEvent{{"chunk", []byte("x")}}},
		{"cut after a data line", "event: chunk\ndata: x\n\nevent: complete\ndata: {}\ndata: {\"chu", []sseEvent{{"chunk", []byte("x")}}},
		{"name without data at eof", "event: chunk\ndata: x\n\nevent: complete\n", []sseEvent{{"chunk", []byte("x")}}},
		{"unknown field", "foo: bar\nevent: x\ndata: y\n\n", []sseEvent{{"x", []byte("y")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			readers := []io.Reader{strings.NewReader(c.in), iotest.HalfReader(strings.NewReader(c.in))}
			if len(c.in) < 4096 {
				readers = append(readers, iotest.OneByteReader(strings.NewReader(c.in)))
			}
			for _, r := range readers {
				got, err := readAllEvents(r)
				if err != nil {
					t.Fatal(err)
				}
				if !eventsEqual(c.want, got) {
					t.Fatalf("events %.200q, want %.200q", got, c.want)
				}
			}
		})
	}
}

// eventsEqual compares events (cmp.Diff is slow on long data).
func eventsEqual(a, b []sseEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func TestSSEReaderBoundsLines(t *testing.T) {
	s := newSSEReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	s.max = 50
	if _, err := s.Next(); !errors.Is(err, errSSELineTooLong) {
		t.Fatalf("want errSSELineTooLong, got %v", err)
	}
}

// conformance: TTS-061, TTS-071
func TestChunkOrder(t *testing.T) {
	cases := []struct {
		seq   []int
		final int
		ok    bool
	}{
		{[]int{1, 2, 3}, 4, true},
		{[]int{1, 2, 3}, 3, true},
		{[]int{0, 1, 2}, 3, true},
		{[]int{1, 3}, 4, false},
		{[]int{1, 2, 2}, 3, false},
		{[]int{2, 3}, 4, false},
		{[]int{1, 2}, 5, false},
		{[]int{1, 2, 3}, 1, false},
	}
	for _, c := range cases {
		var o chunkOrder
		var err error
		for _, i := range c.seq {
			if err = o.next(i, "test"); err != nil {
				break
			}
		}
		if err == nil {
			err = o.final(c.final, "test")
		}
		var ie *IncompleteError
		if c.ok != (err == nil) || (err != nil && !errors.As(err, &ie)) {
			t.Errorf("%v then %d: got %v, want ok=%v", c.seq, c.final, err, c.ok)
		}
	}
}

// FuzzSSEReader checks that any input parses without panic into the same
// events whether it arrives whole or a byte at a time.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"event: start\ndata: {}\n\n",
		"event: chunk\r\ndata: {\"chunk_index\":1,\"audio\":\"AAAA\"}\r\n\r\n",
		"data: a\rdata: b\r\r: c\n",
		"event: complete\ndata: {}\n",
		"\r\n\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err1 := readAllEvents(bytes.NewReader(in))
		bytewise, err2 := readAllEvents(iotest.OneByteReader(bytes.NewReader(in)))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v vs %v", err1, err2)
		}
		if !eventsEqual(whole, bytewise) {
			t.Fatalf("events differ by chunking: %q vs %q", whole, bytewise)
		}
		// A cut stream gives the whole stream's first events, plus at most
		// one event dispatched at the cut (its lines all terminated).
		cut, _ := readAllEvents(bytes.NewReader(in[:len(in)/2]))
		if k := len(cut) - 1; k > len(whole) || (k > 0 && !eventsEqual(cut[:k], whole[:k])) {
			t.Fatalf("a prefix gave events %q, the whole %q", cut, whole)
		}
	})
}
