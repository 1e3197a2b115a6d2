package transcript_test

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/internal/heaptest"
	"github.com/voxform/voxform/transcript"
)

// onlyReader hides every method but Read: no Seek, so a second pass over
// the document is impossible.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// DecodeJSON returns the segments and the audit fields in one pass, in
// whatever order the document holds them, skipping fields it does not use.
// conformance: BJ-040, BJ-041, BJ-042, BJ-043
func TestDecodeJSONReadsSegmentsAndMetaInOnePass(t *testing.T) {
	doc := `{"file_id":"f1","segments":[{"segment_id":0,"start_time":0.5,"end_time":1.25,"text":"hi","speaker_id":0,"confidence":null,"emotion":{"x":[1,2]}},
	{"segment_id":1,"start_time":1.25,"end_time":2,"text":"hello","speaker_id":1}],"full_transcript":"hi hello",
	"language_code":"en-IN","duration_seconds":12.5,"mode":"transcribe","model":"stt-v2.5","extra":[{"a":null}]}`
	got, err := transcript.DecodeJSON(onlyReader{strings.NewReader(doc)}, transcript.Labels{Speakers: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &transcript.Document{
		Segments: []transcript.Segment{
			{Start: 500 * time.Millisecond, End: 1250 * time.Millisecond, Text: "hi", Speaker: "Speaker 1"},
			{Start: 1250 * time.Millisecond, End: 2 * time.Second, Text: "hello", Speaker: "Speaker 2"},
		},
		LanguageCode: "en-IN", DurationSeconds: 12.5, Model: "stt-v2.5",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("document (-want +got):\n%s", d)
	}
	for _, bad := range []string{`{"segments":`, `{"segments":{}}`, `{"duration_seconds":"12"}`, `[]`, `null`, ``, `{"segments":[{"start_time":1}`} {
		if _, err := transcript.DecodeJSON(strings.NewReader(bad), transcript.Labels{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if d, err := transcript.DecodeJSON(strings.NewReader(`{"segments":null}`), transcript.Labels{}); err != nil || len(d.Segments) != 0 {
		t.Errorf("null segments: %v, %v", d, err)
	}
}

// bulkyDoc streams a transcript JSON of n segments whose every segment
// carries pad bytes of a field voxform does not read; the document is
// made as it is read, never whole in memory.
type bulkyDoc struct {
	n, i   int
	filler string
	buf    []byte
}

func newBulkyDoc(n, pad int) *bulkyDoc {
	return &bulkyDoc{n: n, filler: strings.Repeat("x", pad), buf: []byte(`{"language_code":"hi-IN","segments":[`)}
}

func (d *bulkyDoc) Read(p []byte) (int, error) {
	for len(d.buf) == 0 {
		switch {
		case d.i < d.n:
			if d.i > 0 {
				d.buf = append(d.buf, ',')
			}
			d.buf = fmt.Appendf(d.buf, `{"segment_id":%d,"start_time":%d,"end_time":%d,"text":"w","speaker_id":0,"words":"%s"}`, d.i, d.i, d.i+1, d.filler)
		case d.i == d.n:
			d.buf = append(d.buf, `],"duration_seconds":12.5,"model":"stt-v2.5"}`...)
		default:
			return 0, io.EOF
		}
		d.i++
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

// peakHeapGrowth runs f and returns how far the heap in use rose above
// its level before f, sampled every few milliseconds.
func peakHeapGrowth(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := heaptest.Sample(5 * time.Millisecond)
	f()
	peak := stop()
	if peak < base {
		return 0
	}
	return peak - base
}

// A transcript is decoded a segment at a time: memory holds the segments,
// not the document (here 32 MB, almost all of it fields voxform skips).
func TestParseJSONMemoryFollowsTheSegmentsNotTheDocument(t *testing.T) {
	const n, pad = 32 << 10, 1000
	var segs []transcript.Segment
	var err error
	growth := peakHeapGrowth(func() { segs, err = transcript.ParseJSON(newBulkyDoc(n, pad), transcript.Labels{}) })
	if err != nil || len(segs) != n {
		t.Fatalf("%d segments, %v", len(segs), err)
	}
	if limit := uint64(n*pad) / 3; growth > limit {
		t.Errorf("the heap grew by %d MiB decoding a %d MiB document: more than the segments need (limit %d MiB)", growth>>20, n*pad>>20, limit>>20)
	}
}
