package executor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// checkRig is an emulator, a client with a hook on its transport, a
// locked state and a manifest directory: what an apply's batcher needs.
type checkRig struct {
	t   *testing.T
	dir string
	emu *emulator.Running
	cl  *speechapi.Client
	rec *state.Recorder
	// hook, when set, sees every call and may change its answer.
	hook func(req *http.Request, resp *http.Response) (*http.Response, error)
	// pre, when set, sees every call before it is sent; an error stops it.
	pre func(req *http.Request) error
}

const rigKey = "sk-listen-SECRET-0123456789abcdef"

type rigTransport struct{ r *checkRig }

func (tr rigTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if tr.r.pre != nil {
		if err := tr.r.pre(req); err != nil {
			return nil, err
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && tr.r.hook != nil {
		return tr.r.hook(req, resp)
	}
	return resp, err
}

func newCheckRig(t *testing.T, opts emulator.Options) *checkRig {
	t.Helper()
	opts.NoEspeak = true
	if opts.TimeScale == 0 {
		opts.TimeScale = 1000
	}
	run, err := emulator.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Shutdown(context.Background()) })
	r := &checkRig{t: t, dir: t.TempDir(), emu: run}
	r.cl, err = speechapi.New(speechapi.Config{BaseURL: run.URL, APIKey: rigKey, RetryWaitMin: 1, RetryWaitMax: 10,
		HTTPClient: &http.Client{Transport: rigTransport{r}}})
	if err != nil {
		t.Fatal(err)
	}
	b := state.NewLocal(r.dir)
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	r.rec, err = b.Open(context.Background(), lk, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.rec.Close(); lk.Unlock() })
	return r
}

type nopReport struct{}

func (nopReport) emit(Event)                                  {}
func (nopReport) done(*planner.Action, result, time.Duration) {}
func (nopReport) fail(string, string, time.Duration, error)   {}
func (nopReport) skip(string, string)                         {}

// batcher is the batcher of a new apply over the rig's directory, its
// orphan sweep, and the cancel of its context (a kill of the process).
func (r *checkRig) batcher() (*jobBatcher, *orphans, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	r.t.Cleanup(cancel)
	sweep := newOrphans(r.cl, r.rec, time.Now)
	op := &batchOp{client: r.cl, files: &outputs{dir: r.dir}, report: nopReport{}, stops: stopper{breaker: r.cl.Breaker()},
		now: time.Now, parallelism: 4, orphans: sweep}
	return newCheckBatcher(ctx, op).(*jobBatcher), sweep, cancel
}

// files writes n renditions (half a second of noise each, which the
// emulator hears as placeholder words; silent ones it fails) named by
// prefix, and returns their checks in hi-IN.
func (r *checkRig) files(prefix string, n int, silent bool) []checkFile {
	r.t.Helper()
	out := make([]checkFile, n)
	for i := range out {
		wav := rendition(fmt.Sprintf("%s-%d", prefix, i), silent)
		p := filepath.Join(r.dir, "scratch", fmt.Sprintf("%s-%d.wav", prefix, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, wav, 0o644); err != nil {
			r.t.Fatal(err)
		}
		sum := sha256.Sum256(wav)
		req, _ := planner.NewCheckRequest("hi-IN", 75, 16000)
		out[i] = checkFile{Fingerprint: planner.CheckFingerprint(hex.EncodeToString(sum[:]), req), Path: p, Seconds: 75, Request: req}
	}
	return out
}

// rendition is a mono 16-bit 16 kHz WAV of half a second: the emulator
// hears placeholder words in it, or nothing (silent).
func rendition(seed string, silent bool) []byte {
	const rate, n = 16000, 8000
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(2*n))
	h := sha256.Sum256([]byte(seed))
	rnd := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), 1))
	for i := range n {
		v := int16(0)
		if !silent { // noise in syllables: an envelope that varies, as speech's does
			amp := 0.2 + 0.8*math.Abs(math.Sin(2*math.Pi*4*float64(i)/rate))
			v = int16(amp * float64(rnd.IntN(16000)-8000))
		}
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

type emuStats struct {
	Created int64 `json:"batch_jobs_created"`
	Started int64 `json:"batch_jobs_started"`
	Cancel  int64 `json:"batch_jobs_cancelled"`
}

func (r *checkRig) stats() emuStats {
	var s emuStats
	if err := json.Unmarshal(r.emu.StatsJSON(), &s); err != nil {
		r.t.Fatal(err)
	}
	return s
}

// drained waits (2 s at most) for the journal to be emptied: a job's
// record is cleared once its checks are handed over.
func (r *checkRig) drained() []journalJob {
	r.t.Helper()
	for range 40 {
		if j := r.journaled(); len(j) == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r.journaled()
}

// journaled lists the jobs the journal file holds.
func (r *checkRig) journaled() []journalJob {
	r.t.Helper()
	j := loadCheckJournal(r.dir, r.cl.BaseURL(), time.Now())
	if j.err != nil {
		r.t.Fatal(j.err)
	}
	return j.jobs
}

// mustHear fails unless every file was heard, by job.
func mustHear(t *testing.T, files []checkFile, heard []checkHeard, errs []error, job string) {
	t.Helper()
	for i := range files {
		if errs[i] != nil {
			t.Fatalf("file %d: %v", i, errs[i])
		}
		// The rendition says 75 s; the job reports the audio it billed.
		if h := heard[i]; strings.TrimSpace(h.Text) == "" || h.JobID != job || h.Seconds <= 0 || h.Seconds > 1 || len(h.Segments) == 0 {
			t.Fatalf("file %d heard %+v, want text, job %s, the half second the job billed, segments", i, h, job)
		}
	}
}

// Three actions asking at once for 2, 3 and 1 checks share one job, each
// file under its fingerprint's name; the journal is empty after.
func TestListenBatchSharesOneJob(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	b.gather = 300 * time.Millisecond // callers on a loaded machine join within it
	sets := [][]checkFile{r.files("a", 2, false), r.files("b", 3, false), r.files("c", 1, false)}
	heard, errs := make([][]checkHeard, 3), make([][]error, 3)
	var wg sync.WaitGroup
	for i, set := range sets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			heard[i], errs[i] = b.transcribe(context.Background(), set)
		}()
	}
	wg.Wait()
	if s := r.stats(); s.Created != 1 || s.Started != 1 {
		t.Fatalf("emulator stats %+v: want one job created and started", s)
	}
	job := heard[0][0].JobID
	for i, set := range sets {
		mustHear(t, set, heard[i], errs[i], job)
	}
	recs, err := r.cl.AllJobFiles(context.Background(), job, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || recs[0].OriginalPath != "listen__"+pickFP(sets, recs[0].OriginalPath)[:16]+".wav" {
		t.Fatalf("job files %+v", recs)
	}
	if j := r.drained(); len(j) != 0 {
		t.Fatalf("journal after collection: %+v", j)
	}
}

// pickFP finds the fingerprint of a file named name.
func pickFP(sets [][]checkFile, name string) string {
	for _, set := range sets {
		for _, f := range set {
			if checkUploadName(f.Fingerprint) == name {
				return f.Fingerprint
			}
		}
	}
	return strings.Repeat("?", 16)
}

// 150 checks make two jobs: 100 files (the documented maximum) and 50.
func TestListenBatchHundredFilesAJob(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	files := r.files("m", 150, false)
	heard, errs := b.transcribe(context.Background(), files)
	if s := r.stats(); s.Created != 2 {
		t.Fatalf("emulator stats %+v: want 2 jobs", s)
	}
	sizes := map[string]int{}
	for i := range files {
		if errs[i] != nil {
			t.Fatalf("file %d: %v", i, errs[i])
		}
		sizes[heard[i].JobID]++
	}
	if sizes[heard[0].JobID] != 100 || sizes[heard[149].JobID] != 50 || len(sizes) != 2 {
		t.Fatalf("files per job: %v", sizes)
	}
}

// A file the service fails for silence ("transcript empty") is heard as
// nothing, that check only: the check then fails as silence, it is not
// an error of the apply.
func TestListenBatchSilentFileHeardAsNothing(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	files := append(r.files("ok", 3, false), r.files("quiet", 1, true)...)
	heard, errs := b.transcribe(context.Background(), files)
	mustHear(t, files[:3], heard[:3], errs[:3], heard[0].JobID)
	if errs[3] != nil || heard[3].Text != "" || heard[3].JobID != heard[0].JobID || heard[3].Seconds != files[3].Seconds {
		t.Fatalf("silent file: %+v, %v", heard[3], errs[3])
	}
	if j := r.drained(); len(j) != 0 {
		t.Fatalf("journal after collection: %+v", j)
	}
}

// killAt cancels an apply's context (the process dies) once a call to
// path's suffix was answered; with before, instead of sending it.
func (r *checkRig) killAt(suffix string, before bool, kill func()) {
	hit := func(req *http.Request) bool {
		return req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, suffix)
	}
	if before {
		r.pre = func(req *http.Request) error {
			if hit(req) {
				kill()
				return context.Canceled
			}
			return nil
		}
		return
	}
	r.hook = func(req *http.Request, resp *http.Response) (*http.Response, error) {
		if hit(req) {
			kill()
		}
		return resp, nil
	}
}

// A job started and then left by a killed apply is followed by the next
// one: no second create, no second start, its checks collected and the
// record cleared.
func TestListenBatchKilledAfterStartIsFollowed(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	first, _, kill := r.batcher()
	files := r.files("k", 3, false)
	r.killAt("/start", false, kill)
	_, errs := first.transcribe(context.Background(), files)
	if errs[0] == nil {
		t.Fatal("the killed apply heard its checks")
	}
	rec := r.journaled()
	if len(rec) != 1 || len(rec[0].Files) != 3 {
		t.Fatalf("journal after the kill: %+v", rec)
	}
	r.hook, r.pre = nil, nil
	next, sweep, _ := r.batcher()
	if n, warns := sweep.sweep(context.Background()); n != 0 || len(warns) != 0 {
		t.Fatalf("sweep cancelled %d (%v)", n, warns)
	}
	heard, errs := next.transcribe(context.Background(), files)
	mustHear(t, files, heard, errs, rec[0].JobID)
	if s := r.stats(); s.Created != 1 || s.Started != 1 {
		t.Fatalf("emulator stats %+v: want the one job, created and started once", s)
	}
	if j := r.drained(); len(j) != 0 {
		t.Fatalf("journal after collection: %+v", j)
	}
}

// A job recorded and then left by a kill before its start is started by
// the next apply (its orphan sweep leaves it alone), never created again.
func TestListenBatchKilledBeforeStartIsStartedOnce(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	first, _, kill := r.batcher()
	files := r.files("s", 2, false)
	r.killAt("/start", true, kill)
	if _, errs := first.transcribe(context.Background(), files); errs[0] == nil {
		t.Fatal("the killed apply heard its checks")
	}
	if s := r.stats(); s.Created != 1 || s.Started != 0 || len(r.journaled()) != 1 {
		t.Fatalf("after the kill: %+v, journal %+v", s, r.journaled())
	}
	r.hook, r.pre = nil, nil
	next, sweep, _ := r.batcher()
	if n, _ := sweep.sweep(context.Background()); n != 0 {
		t.Fatalf("the sweep cancelled the recorded job")
	}
	heard, errs := next.transcribe(context.Background(), files)
	mustHear(t, files, heard, errs, heard[0].JobID)
	if s := r.stats(); s.Created != 1 || s.Started != 1 || s.Cancel != 0 {
		t.Fatalf("emulator stats %+v", s)
	}
}

// rewriteTranscripts changes every downloaded transcript (a GET without
// the key: presigned storage) with edit.
func (r *checkRig) rewriteTranscripts(edit func(doc map[string]any)) {
	r.hook = func(req *http.Request, resp *http.Response) (*http.Response, error) {
		if req.Method != http.MethodGet || req.Header.Get("X-API-Key-ID") != "" || resp.StatusCode != http.StatusOK {
			return resp, nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			edit(doc)
			body, _ = json.Marshal(doc)
		}
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		resp.Header.Del("Content-Length")
		return resp, nil
	}
}

// A service that echoes the key into a transcript never gets it into
// the text or the segments a check keeps.
func TestListenBatchRedactsTheKey(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	r.rewriteTranscripts(func(doc map[string]any) {
		doc["full_transcript"] = "heard " + rigKey + " here"
		if segs, _ := doc["segments"].([]any); len(segs) > 0 {
			segs[0].(map[string]any)["text"] = "key " + rigKey
		}
	})
	b, _, _ := r.batcher()
	files := r.files("key", 1, false)
	heard, errs := b.transcribe(context.Background(), files)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	all := heard[0].Text
	for _, s := range heard[0].Segments {
		all += s.Text
	}
	if strings.Contains(all, rigKey) || !strings.Contains(heard[0].Text, "[redacted]") {
		t.Fatalf("heard %+v", heard[0])
	}
}

// A transcript longer than state.MaxHeard fails its check, naming the
// bound.
func TestListenBatchHeardBound(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	r.rewriteTranscripts(func(doc map[string]any) { doc["full_transcript"] = strings.Repeat("a ", state.MaxHeard/2+1) })
	b, _, _ := r.batcher()
	_, errs := b.transcribe(context.Background(), r.files("long", 1, false))
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "256 KiB") {
		t.Fatalf("a transcript over the bound: %v", errs[0])
	}
}

// A job that does not finish within the wait bound fails its checks
// naming the bound, and stays recorded for the next apply.
func TestListenBatchWaitBound(t *testing.T) {
	r := newCheckRig(t, emulator.Options{TimeScale: 1}) // a job takes seconds
	b, _, _ := r.batcher()
	b.wait = 200 * time.Millisecond
	start := time.Now()
	_, errs := b.transcribe(context.Background(), r.files("slow", 1, false))
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "did not finish within 200ms") {
		t.Fatalf("a job over the bound: %v", errs[0])
	}
	if time.Since(start) > 5*time.Second || len(r.journaled()) != 1 {
		t.Fatalf("after %v, journal %+v", time.Since(start), r.journaled())
	}
}

// A caller that gives up (its context ends) returns at once; a check
// nobody waits for any more makes no job.
func TestListenBatchCallerContext(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	b.gather = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, errs := b.transcribe(ctx, r.files("gone", 2, false))
	if errs[0] == nil || errs[1] == nil || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("after %v: %v", time.Since(start), errs)
	}
	time.Sleep(1500 * time.Millisecond)
	if s := r.stats(); s.Created != 0 {
		t.Fatalf("a job was made for nobody: %+v", s)
	}
}

// Checks of gu-IN or pa-IN beyond REST's limit need the older batch API,
// which checks do not use: a clear per-file error naming the limit.
func TestListenBatchLegacyRefused(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	f := r.files("gu", 1, false)[0]
	f.Request = planner.CheckRequest{API: contract.ListenAPI("gu-IN", 75), LanguageCode: "gu-IN", Format: "verbatim", Rate: 16000}
	_, errs := b.transcribe(context.Background(), []checkFile{f})
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "not checked: gu-IN audio over 59.5 s needs the older batch API") {
		t.Fatalf("gu-IN over 60 s: %v", errs[0])
	}
}

// A transcript JSON over the bound of a check's is refused as it
// downloads, naming the bound.
func TestListenBatchTranscriptBound(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	r.rewriteTranscripts(func(doc map[string]any) { doc["padding"] = strings.Repeat("x", maxCheckTranscript) })
	b, _, _ := r.batcher()
	_, errs := b.transcribe(context.Background(), r.files("huge", 1, false))
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "larger than 4 MiB") {
		t.Fatalf("a transcript over the bound: %v", errs[0])
	}
}

// A journal voxform cannot read makes no check job (one it recorded would
// be paid again): each check fails naming the file.
func TestListenBatchUnreadableJournal(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	p := filepath.Join(r.dir, ".voxform", checkJobsFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"jobs": [{"job_id": "j", "api": "batch", "files": [{"fingerprint": "x", "name": "../x"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _, _ := r.batcher()
	_, errs := b.transcribe(context.Background(), r.files("j", 1, false))
	if errs[0] == nil || !strings.Contains(errs[0].Error(), checkJobsFile) || r.stats().Created != 0 {
		t.Fatalf("with an unreadable journal: %v, %+v", errs[0], r.stats())
	}
}

// A recorded job the service no longer knows fails its checks once and
// is forgotten: the next transcription makes a new job.
func TestListenBatchRecordedJobGone(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	files := r.files("gone", 1, false)
	j := loadCheckJournal(r.dir, r.cl.BaseURL(), time.Now())
	if err := j.add(journalJob{JobID: "job_0123456789abcdef", API: "batch", Service: r.cl.BaseURL(), Created: time.Now().UTC(),
		LanguageCode: "hi-IN", Model: files[0].Request.Model,
		Files: []journalFile{{Fingerprint: files[0].Fingerprint, Name: checkUploadName(files[0].Fingerprint)}}}); err != nil {
		t.Fatal(err)
	}
	b, _, _ := r.batcher()
	_, errs := b.transcribe(context.Background(), files)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "job_0123456789abcdef no longer exists") || len(r.journaled()) != 0 {
		t.Fatalf("a recorded job gone: %v, journal %+v", errs[0], r.journaled())
	}
	heard, errs := b.transcribe(context.Background(), files)
	mustHear(t, files, heard, errs, heard[0].JobID)
	if s := r.stats(); s.Created != 1 {
		t.Fatalf("emulator stats %+v", s)
	}
}
