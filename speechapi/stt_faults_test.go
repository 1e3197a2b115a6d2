package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// faultRig is a client and emulator with fault knobs on, and audio the
// emulator itself spoke (so each transcript is known). The client is the
// one retry layer.
type faultRig struct {
	t         *testing.T
	e         *recogEmu
	c         *speechapi.Client
	files     []speechapi.Source
	want      map[string]string // file name -> its spoken text
	retries   atomic.Int64      // requests the client sent again
	resubmits atomic.Int64      // older batch submits the caller sent again
}

var faultTexts = []string{
	"Your appointment is confirmed for Tuesday morning.",
	"Please keep your account number ready before you call.",
	"The parcel left the warehouse and reaches you tomorrow.",
}

func newFaultRig(t *testing.T, opts emulator.Options) *faultRig {
	t.Helper()
	opts.NoEspeak = true
	r := &faultRig{t: t, e: newRecogEmu(t, opts), want: map[string]string{}}
	var err error
	r.c, err = speechapi.New(speechapi.Config{BaseURL: r.e.http.URL, APIKey: "test-key", Retries: 8,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 3 * time.Millisecond,
		OnRetry: func(string, int, error) { r.retries.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, text := range faultTexts {
		var buf memFile
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Nalini", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 16000}}}
		r.retry("synthesize", func() error {
			_, err := r.c.Synthesize(context.Background(), req, &buf)
			return err
		})
		name := fmt.Sprintf("clip-%d.wav", i)
		r.files = append(r.files, writeAudioFile(t, dir, name, buf.Bytes()))
		r.want[name] = text
	}
	return r
}

// retry runs op, failing the test when it fails. Only an older batch
// submit whose answer was cut is the caller's to send again (the job
// started when the service answered, so the client does not); the client
// sends every other call again itself.
func (r *faultRig) retry(what string, op func() error) {
	r.t.Helper()
	for attempt := 1; ; attempt++ {
		err := op()
		var ie *speechapi.IncompleteError
		if what == "submit" && errors.As(err, &ie) && attempt < 15 {
			r.resubmits.Add(1)
			continue
		}
		if err != nil {
			r.t.Fatalf("%s: %v", what, err)
		}
		return
	}
}

// rest transcribes each clip over REST.
func (r *faultRig) rest() {
	for _, f := range r.files {
		var res *speechapi.TranscribeResult
		r.retry("transcribe "+f.Name, func() (err error) {
			res, err = r.c.Transcribe(context.Background(), f, speechapi.TranscribeOptions{LanguageCode: "en-IN"})
			return err
		})
		if normWords(res.Transcript) != normWords(r.want[f.Name]) || !json.Valid(res.Raw) {
			r.t.Errorf("REST %s: %q, want %q", f.Name, res.Transcript, r.want[f.Name])
		}
	}
}

// batchJob runs every clip through one batch job step by step and checks
// each downloaded transcript JSON whole.
func (r *faultRig) batchJob() {
	ctx := context.Background()
	cfg := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "en-IN"}
	var created *speechapi.CreateJobResult
	r.retry("create", func() (err error) { created, err = r.c.CreateJobUpload(ctx, cfg, r.files, ""); return err })
	id := created.JobID
	r.retry("start", func() error { _, err := r.c.StartJob(ctx, id); return err })
	var job *speechapi.Job
	r.retry("wait", func() (err error) { job, err = r.c.WaitJob(ctx, id, fastPoll); return err })
	if job.Status != speechapi.JobCompleted {
		r.t.Fatalf("job %s: %s", id, job.Status)
	}
	var recs []speechapi.FileRecord
	r.retry("files", func() (err error) { recs, err = r.c.AllJobFiles(ctx, id, ""); return err })
	if len(recs) != len(r.files) {
		r.t.Fatalf("job %s lists %d files, want %d", id, len(recs), len(r.files))
	}
	for _, rec := range recs {
		var out memFile
		r.retry("download "+rec.OriginalPath, func() error {
			_, err := r.c.DownloadTranscript(ctx, id, rec, &out)
			return err
		})
		var doc struct {
			FullTranscript string `json:"full_transcript"`
			OriginalPath   string `json:"original_path"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.OriginalPath != rec.OriginalPath ||
			normWords(doc.FullTranscript) != normWords(r.want[rec.OriginalPath]) {
			r.t.Errorf("batch %s: %v %q, want %q", rec.OriginalPath, err, doc.FullTranscript, r.want[rec.OriginalPath])
		}
	}
}

// legacy runs every clip through one older batch job.
func (r *faultRig) legacy() {
	ctx := context.Background()
	var sub *speechapi.LegacySubmitResult
	r.retry("submit", func() (err error) {
		sub, err = r.c.SubmitLegacy(ctx, r.files, speechapi.LegacyOptions{LanguageCode: "en-IN"})
		return err
	})
	var job *speechapi.LegacyJob
	r.retry("older batch wait", func() (err error) { job, err = r.c.WaitLegacy(ctx, sub.JobID, fastPoll); return err })
	if job.Status != "completed" || len(job.Results) != len(r.files) || !json.Valid(job.Raw) {
		r.t.Fatalf("older batch job %+v", job)
	}
	for _, res := range job.Results {
		if normWords(res.FullTranscript) != normWords(r.want[res.Filename]) {
			r.t.Errorf("older batch %s: %q, want %q", res.Filename, res.FullTranscript, r.want[res.Filename])
		}
	}
}

func (r *faultRig) stats() recogStats { return r.e.stats(r.t) }

// Routes whose answers the drop test must see cut.
var dropRoutes = []string{
	"POST /stt/v3",
	"POST /stt/v3/batch/jobs",
	"POST /stt/v3/batch/jobs/{job_id}/start",
	"GET /stt/v3/batch/jobs/{job_id}",
	"GET /stt/v3/batch/jobs/{job_id}/files",
	"GET /_storage/transcripts/{token}",
	"POST /stt/v3/batch/submit",
	"GET /stt/v3/batch/status/{job_id}",
}

// TestRecognitionDropsAreRetried: with connections cut mid-answer on
// REST transcription, every batch job call (create, start, status, files,
// presigned download) and the older batch (submit, status), the client
// sends each call again itself, except an older batch submit (the caller
// decides); every transcript comes out whole and correct. Rounds repeat
// until every route has had an answer cut.
//
// conformance: BJ-054, BJ-056, OB-031, STT-028
func TestRecognitionDropsAreRetried(t *testing.T) {
	r := newFaultRig(t, emulator.Options{DropRate: 0.3, Seed: 11})
	missing := dropRoutes
	for round := 0; round < 25 && len(missing) > 0; round++ {
		r.rest()
		r.batchJob()
		r.legacy()
		st := r.stats()
		missing = nil
		for _, route := range dropRoutes {
			if st.FaultsByRoute[route]["drop"] == 0 {
				missing = append(missing, route)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("no answer was cut on %v: %v", missing, r.stats().FaultsByRoute)
	}
	if r.retries.Load() == 0 || r.resubmits.Load() == 0 {
		t.Errorf("%d retries by the client, %d submits sent again: the test proved nothing", r.retries.Load(), r.resubmits.Load())
	}
}

// TestRecognitionUnderAllFaultsEndsWithEveryTranscriptCorrect: 500/503s,
// 429s with Retry-After and cut connections all at once, over a dozen REST
// transcriptions, one batch job and one older batch job: every transcript
// is correct and the statistics show every kind of fault.
//
// conformance: ERR-017, ERR-018, ERR-019, ERR-026, ERR-034
func TestRecognitionUnderAllFaultsEndsWithEveryTranscriptCorrect(t *testing.T) {
	r := newFaultRig(t, emulator.Options{FailRate: 0.12, RateLimit: 0.12, DropRate: 0.15, Seed: 1})
	for range 4 {
		r.rest()
	}
	r.batchJob()
	r.legacy()
	st := r.stats()
	t.Logf("requests %v, faults %v, retries %d", st.Requests, st.FaultsInjected, r.retries.Load())
	for _, kind := range []string{"429", "drop"} {
		if st.FaultsInjected[kind] == 0 {
			t.Errorf("no %s fault was injected: %v", kind, st.FaultsInjected)
		}
	}
	if st.FaultsInjected["500"]+st.FaultsInjected["503"] == 0 || st.FilesTranscribed < int64(2*len(faultTexts)) {
		t.Errorf("stats %+v", st)
	}
}

// TestLatencyKnobDelaysCalls: with -latency, a REST transcription, a job
// status read and a realtime handshake each take at least the latency.
func TestLatencyKnobDelaysCalls(t *testing.T) {
	const latency = 120 * time.Millisecond
	e := newRecogEmu(t, emulator.Options{Latency: latency})
	ctx := context.Background()
	clip := wavBytes(t, 21, 0.3, 16000, kindSpeech)
	src := writeAudioFile(t, t.TempDir(), "l.wav", clip)
	for name, call := range map[string]func() error{
		"transcribe": func() error {
			_, err := e.client.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"list jobs": func() error { _, err := e.client.ListJobs(ctx, speechapi.JobsQuery{}); return err },
		"realtime": func() error {
			_, err := e.client.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		},
	} {
		begin := time.Now()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := time.Since(begin); d < latency {
			t.Errorf("%s took %v, less than the %v latency", name, d, latency)
		}
	}
}
