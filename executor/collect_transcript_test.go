package executor

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/voxform/voxform/transcript"
)

// writeBulkyTranscript writes a transcript JSON of n segments, each with
// pad bytes of a field voxform does not read, the audit fields last.
func writeBulkyTranscript(t *testing.T, path string, n, pad int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	filler := strings.Repeat("x", pad)
	fmt.Fprint(w, `{"file_id":"f1","segments":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"segment_id":%d,"start_time":%d,"end_time":%d,"text":"w","speaker_id":1,"words":"%s"}`, i, i, i+1, filler)
	}
	fmt.Fprint(w, `],"language_code":"en-IN","duration_seconds":1234.5,"model":"stt-v2.5"}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readTranscript reads the segments and the audit fields of a downloaded
// transcript in one streaming pass: the heap grows with the segments kept,
// not with the document (decoding it whole, twice, took several times its
// size).
func TestReadTranscriptStreamsOnce(t *testing.T) {
	const n, pad = 32 << 10, 1000
	path := filepath.Join(t.TempDir(), "t.json")
	writeBulkyTranscript(t, path, n, pad)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	meta, segs, err := readTranscript(path, transcript.Labels{Speakers: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if meta != (transcriptMeta{LanguageCode: "en-IN", DurationSeconds: 1234.5, Model: "stt-v2.5"}) || len(segs) != n || segs[0].Speaker != "Speaker 2" {
		t.Fatalf("meta %+v, %d segments (first %+v)", meta, len(segs), segs[0])
	}
	// TotalAlloc counts every byte allocated, garbage included: a decoder
	// holding the document allocates at least its size.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(n*pad)/2; got > limit {
		t.Errorf("reading a %d MiB transcript allocated %d MiB (limit %d MiB)", n*pad>>20, got>>20, limit>>20)
	}
}
