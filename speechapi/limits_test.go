package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/internal/heaptest"
	"github.com/voxform/voxform/speechapi"
)

// endless writes copies of piece to w until the client hangs up, and
// returns how many bytes it wrote.
func endless(w io.Writer, piece []byte) int64 {
	var n int64
	for {
		k, err := w.Write(piece)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// limitBackstop bounds each call of the size-limit tests: the limits, not
// a timeout, are under test here, and reading 17 MiB under the race
// detector on a loaded 2-core machine has taken over 10 s. It only keeps
// a hang from lasting.
const limitBackstop = 60 * time.Second

// limitClient is a client of base with one retry and a timeout of
// limitBackstop: reading many MiB under the race detector on a loaded
// machine may pause longer than timeoutClient's 300 ms (a retry would
// then count as a request).
func limitClient(t *testing.T, base string) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: base, APIKey: testKey, Timeout: limitBackstop, Retries: 1,
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkLimit fails unless err is a *LimitError naming host and limit that
// Retry will not repeat.
func checkLimit(t *testing.T, err error, host, limit string) {
	t.Helper()
	var le *speechapi.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("%v, want a *LimitError", err)
	}
	if !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), limit) || speechapi.IsTemporary(err) {
		t.Errorf("%v: want the host %s, the limit %s, and not temporary", err, host, limit)
	}
}

// A transcript download larger than MaxTranscriptBytes fails with a
// *LimitError: at once when the length is declared, after exactly the
// limit when it is not, with the client's memory flat either way.
func TestTranscriptDownloadIsCapped(t *testing.T) {
	for _, declared := range []bool{true, false} {
		t.Run(fmt.Sprintf("declared length %v", declared), func(t *testing.T) {
			var sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if declared {
					w.Header().Set("Content-Length", strconv.Itoa(3<<30))
				}
				w.Header().Set("Content-Type", "application/json")
				sent.Store(endless(w, bytes.Repeat([]byte(`{"text":"ab"},`), 4096)))
			}))
			defer srv.Close()
			c := limitClient(t, srv.URL)
			u := srv.URL + "/storage/t.json?sig=1"
			rec := speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
			var out countingWriter
			defer debug.SetGCPercent(debug.SetGCPercent(20))
			ctx, cancel := context.WithTimeout(context.Background(), limitBackstop)
			defer cancel()
			base, stop := heapGrowth()
			_, err := c.DownloadTranscript(ctx, "job_1", rec, &out)
			peak := stop()
			checkLimit(t, err, strings.TrimPrefix(srv.URL, "http://"), "256 MiB")
			switch {
			case declared && out.n != 0:
				t.Errorf("%d bytes written from an answer declared too long", out.n)
			case !declared && out.n != speechapi.MaxTranscriptBytes:
				t.Errorf("%d bytes written, want the limit exactly", out.n)
			}
			if growth := peak - min(peak, base); growth > 16<<20 {
				t.Errorf("the heap grew by %.1f MiB", mib(growth))
			}
		})
	}
}

// filesServer answers a job's files listing with page(cursor, n), n
// counting the requests from 1.
func filesServer(t *testing.T, page func(cursor string, n int) string) (*speechapi.Client, *atomic.Int32, string) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, page(r.URL.Query().Get("cursor"), int(n.Add(1))))
	}))
	t.Cleanup(srv.Close)
	return limitClient(t, srv.URL), &n, strings.TrimPrefix(srv.URL, "http://")
}

// records is n file records as JSON, ids from first.
func records(first, n int) string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"file_id": "f%d", "original_path": "a%d.wav", "status": "COMPLETED"}`, first+i, first+i)
	}
	return "[" + strings.Join(recs, ",") + "]"
}

func filesPage(data string, more bool, next string) string {
	cursor := "null"
	if next != "" {
		cursor = strconv.Quote(next)
	}
	return fmt.Sprintf(`{"job_id": "job_1", "data": %s, "pagination": {"has_more": %v, "next_cursor": %s}}`, data, more, cursor)
}

// A job holds at most 100 files: a listing with more records, more pages,
// a cursor that comes back, or more bytes than a job's records take is
// refused with a *LimitError naming the host, after a bounded number of
// requests.
// conformance: BJ-094
func TestFilesListingIsCapped(t *testing.T) {
	huge := filesPage(`[{"file_id": "f1", "original_path": "a.wav", "status": "FAILED", "error_message": "`+strings.Repeat("x", 17<<20)+`"}]`, false, "")
	cases := []struct {
		name, limit string
		page        func(cursor string, n int) string
		maxRequests int
	}{
		{"101 records on a page", "100 files", func(string, int) string { return filesPage(records(0, 101), false, "") }, 1},
		{"a record a page, forever", "100 files", func(_ string, n int) string { return filesPage(records(n, 1), true, fmt.Sprint("c", n)) }, 101},
		{"empty pages, forever", "100 files", func(_ string, n int) string { return filesPage("[]", true, fmt.Sprint("c", n)) }, 100},
		{"cursors in a cycle", "100 files", func(cursor string, n int) string {
			next := map[string]string{"": "c1", "c1": "c2", "c2": "c1"}[cursor]
			return filesPage(records(n, 1), true, next)
		}, 3},
		{"a page too large", "16 MiB", func(string, int) string { return huge }, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, n, host := filesServer(t, tc.page)
			ctx, cancel := context.WithTimeout(context.Background(), limitBackstop)
			defer cancel()
			recs, err := c.AllJobFiles(ctx, "job_1", "")
			checkLimit(t, err, host, tc.limit)
			if recs != nil || int(n.Load()) > tc.maxRequests {
				t.Errorf("%d records after %d requests", len(recs), n.Load())
			}
		})
	}
	// A job of exactly 100 files, a file a page, is listed whole.
	c, _, _ := filesServer(t, func(_ string, n int) string { return filesPage(records(n, 1), n < 100, fmt.Sprint("c", n)) })
	if recs, err := c.AllJobFiles(context.Background(), "job_1", ""); err != nil || len(recs) != 100 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
}

// An SSE line longer than MaxSSELineBytes ends the stream with a
// *LimitError without holding more than the limit; an ogg synthesis,
// whose one chunk is the whole file, may be longer.
func TestSSELineIsCapped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, start+"event: chunk\ndata: ")
		endless(w, bytes.Repeat([]byte("QUJD"), 16<<10))
	}))
	defer srv.Close()
	c := limitClient(t, srv.URL)
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	ctx, cancel := context.WithTimeout(context.Background(), limitBackstop)
	defer cancel()
	base, stop := heapGrowth()
	_, err := c.SynthesizeStream(ctx, rawReq, &memFile{})
	peak := stop()
	checkLimit(t, err, strings.TrimPrefix(srv.URL, "http://"), "8 MiB")
	if growth := peak - min(peak, base); growth > 40<<20 {
		t.Errorf("the heap grew by %.1f MiB", mib(growth))
	}

	ogg := append([]byte("OggS"), make([]byte, 9<<20)...) // 12 MiB of base64
	c = fakeSSE(t, start+chunk(1, ogg)+complete(2))
	req := *rawReq
	req.AudioConfig = &speechapi.AudioConfig{Container: "ogg"}
	var out memFile
	if _, err := c.SynthesizeStream(context.Background(), &req, &out); err != nil || len(out.Bytes()) != len(ogg) {
		t.Fatalf("an ogg chunk of %d bytes: %v (%d written)", len(ogg), err, len(out.Bytes()))
	}
}

// A stream of large chunks is decoded holding each chunk's text once:
// from one chunk to the next the client allocates the chunk's decoded
// audio and little more (a copy of the text into a second buffer, made
// anew for every chunk, cost several times that).
func TestSSEChunksAreNotCopied(t *testing.T) {
	const size = 1 << 20
	piece := bytes.Repeat([]byte{1, 2}, size/2)
	perRun := map[int]uint64{}
	for _, chunks := range []int{2, 6} {
		var stream []byte // made before the measure: the server allocates nothing
		stream = append(stream, start...)
		for i := 1; i <= chunks; i++ {
			stream = append(stream, chunk(i, piece)...)
		}
		stream = append(stream, complete(chunks+1)...)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(stream)
		}))
		c := limitClient(t, srv.URL)
		var out countingWriter
		perRun[chunks] = heaptest.Allocated(func() {
			if _, err := c.SynthesizeStream(context.Background(), rawReq, &out); err != nil {
				t.Fatal(err)
			}
		})
		srv.Close()
		if out.n != int64(chunks*size) {
			t.Fatalf("%d bytes", out.n)
		}
	}
	perChunk := (perRun[6] - min(perRun[6], perRun[2])) / 4
	t.Logf("%.2f MiB allocated per chunk of %d MiB", mib(perChunk), size>>20)
	if limit := uint64(size + size/4); perChunk > limit {
		t.Errorf("each %d MiB chunk allocated %.1f MiB, want at most %.1f MiB", size>>20, mib(perChunk), mib(limit))
	}
}

// A realtime transcript message larger than MaxRealtimeMessageBytes ends
// the session with a *LimitError (the audio frame bound, far larger, does
// not apply to transcripts).
func TestRealtimeMessageIsCapped(t *testing.T) {
	big := fmt.Sprintf(`{"type": "transcript", "text": %q, "audio_duration_ms": 500, "segment_id": "s0", "segment_index": 0}`, strings.Repeat("a", 2<<20))
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if len(data) == 0 {
				break
			}
		}
		_ = conn.WriteMessage(websocket.TextMessage, []byte(big))
		_, _, _ = conn.ReadMessage()
	}))
	defer srv.Close()
	c := limitClient(t, srv.URL)
	clip := wavBytes(t, 2, 0.5, 16000, kindSpeech)
	_, err := c.TranscribeRealtime(context.Background(), bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN", IdleTimeout: time.Second})
	checkLimit(t, err, strings.TrimPrefix(srv.URL, "http://"), "1 MiB")
}

// A synthesis's answer is copied through a pooled buffer: a call
// allocates less than the 32 KiB buffer io.Copy made for each.
func TestSynthesizeCopiesThroughAPooledBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	audio := make([]byte, 17040) // a prompt of raw 8 kHz audio
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/pcm")
		_, _ = w.Write(audio)
	}))
	defer srv.Close()
	c := limitClient(t, srv.URL)
	synthesize := func() {
		var out countingWriter
		if _, err := c.Synthesize(context.Background(), rawReq, &out); err != nil || out.n != int64(len(audio)) {
			t.Fatalf("%d bytes, %v", out.n, err)
		}
	}
	synthesize() // the connection made
	const calls = 20
	per := heaptest.Allocated(func() {
		for range calls {
			synthesize()
		}
	}) / calls
	t.Logf("%d B allocated a call", per)
	if per >= 32<<10 {
		t.Errorf("a synthesis of %d bytes allocated %d B; want less than the 32 KiB of a copy buffer each", len(audio), per)
	}
}
