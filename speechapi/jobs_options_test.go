package speechapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// transcriptOf runs one file through a job and returns its status and
// downloaded transcript JSON.
func transcriptOf(t *testing.T, e *recogEmu, cfg speechapi.JobConfig, src speechapi.Source) (*speechapi.Job, map[string]any) {
	t.Helper()
	ctx := context.Background()
	res, err := e.client.RunJob(ctx, cfg, []speechapi.Source{src}, speechapi.RunOptions{Poll: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := e.client.DownloadTranscript(ctx, res.Jobs[0].JobID, res.Files[0].Record, &buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return res.Jobs[0], doc
}

func speakerIDs(doc map[string]any) map[float64]int {
	ids := map[float64]int{}
	for _, s := range doc["segments"].([]any) {
		ids[s.(map[string]any)["speaker_id"].(float64)]++
	}
	return ids
}

// conformance: BJ-007, BJ-008, BJ-011, BJ-012, BJ-014, BJ-017, BJ-018, BJ-022, BJ-023, BJ-026
func TestJobOptions(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{TimeScale: 200})
	dir := t.TempDir()
	mono := writeAudioFile(t, dir, "call.wav", wavBytes(t, 51, 60, 8000, kindSpeech))
	plain, doc := transcriptOf(t, e, hiConfig, mono)
	if plain.Config.Model != "stt-v2.5" || plain.Config.LanguageCode != "hi-IN" || plain.Config.Mode != "transcribe" ||
		plain.Config.NumSpeakers != nil || plain.Config.WithDiarization || plain.Config.IsMultiChannel || plain.Config.WithDenoise != nil {
		t.Errorf("defaults echoed as %+v", plain.Config)
	}
	// The defaults of a config that leaves them out, as the service echoes
	// them: mode transcribe, no diarization, not multi-channel, num_speakers
	// null.
	status, raw := rawJSON(t, http.MethodPost, e.http.URL+"/stt/v3/batch/jobs", `{"config": {"model": "stt-v2.5", "language_code": "hi-IN"},
		"source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": ["https://audio.example.com/a.wav"]}}`)
	id, _ := raw["job_id"].(string)
	if status != http.StatusCreated || id == "" {
		t.Fatalf("raw create: %d %v", status, raw)
	}
	status, raw = rawJSON(t, http.MethodGet, e.http.URL+"/stt/v3/batch/jobs/"+id, "")
	want := map[string]any{"model": "stt-v2.5", "language_code": "hi-IN", "mode": "transcribe",
		"with_diarization": false, "num_speakers": nil, "is_multi_channel": false}
	if cfg, _ := raw["config"].(map[string]any); status != http.StatusOK || fmt.Sprint(cfg) != fmt.Sprint(want) {
		t.Errorf("config echoed as %d %v, want %v", status, raw["config"], want)
	}
	if ids := speakerIDs(doc); len(ids) != 1 {
		t.Errorf("speakers without diarization: %v", ids)
	}
	billed := e.stats(t).BilledAudioSeconds

	diar := hiConfig
	diar.WithDiarization, diar.NumSpeakers = true, recogPtr(2)
	job, doc := transcriptOf(t, e, diar, mono)
	if ids := speakerIDs(doc); len(ids) != 2 || !job.Config.WithDiarization || job.Config.NumSpeakers == nil || *job.Config.NumSpeakers != 2 {
		t.Errorf("diarized speakers %v, config %+v", ids, job.Config)
	}

	den := hiConfig
	den.WithDenoise = recogPtr(true)
	denJob, denDoc := transcriptOf(t, e, den, mono)
	if denJob.Config.WithDenoise == nil || !*denJob.Config.WithDenoise {
		t.Errorf("with_denoise not echoed: %+v", denJob.Config)
	}
	// Same transcript shape and billing; about a quarter of the audio's
	// duration more processing (15 s of service time at scale 200: 75 ms).
	if fmt.Sprint(denDoc["segments"]) != fmt.Sprint(docNoSpeakers(t, e, mono)["segments"]) {
		t.Errorf("denoise changed the transcript")
	}
	if extra := runTime(t, denJob) - runTime(t, plain); extra < 60*time.Millisecond || extra > 90*time.Millisecond {
		t.Errorf("denoise added %v of processing, want about 75ms", extra)
	}
	st := e.stats(t)
	if d := st.BilledAudioSeconds - 4*billed; d < -0.01 || d > 0.01 {
		t.Errorf("billed %.2f s for four runs of %.2f s", st.BilledAudioSeconds, billed)
	}

	multi := hiConfig
	multi.IsMultiChannel = true
	job, doc = transcriptOf(t, e, multi, writeAudioFile(t, dir, "stereo.wav", stereoWAV(t, 8)))
	if ids := speakerIDs(doc); len(ids) != 2 || !job.Config.IsMultiChannel {
		t.Errorf("multi-channel speakers %v, config %+v", ids, job.Config)
	}
}

func docNoSpeakers(t *testing.T, e *recogEmu, src speechapi.Source) map[string]any {
	_, doc := transcriptOf(t, e, hiConfig, src)
	return doc
}

// runTime is a job's started_at to completed_at.
func runTime(t *testing.T, j *speechapi.Job) time.Duration {
	t.Helper()
	a, err := time.Parse(time.RFC3339, *j.StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := time.Parse(time.RFC3339, *j.CompletedAt)
	if err != nil {
		t.Fatal(err)
	}
	return b.Sub(a)
}

// conformance: BJ-094, BJ-069, BJ-101
func TestJobZipUpload(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	zpath := filepath.Join(dir, "calls.zip")
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for i, name := range []string{"a.wav", "b.wav", "sub/c.wav", "notes.txt"} {
		w, _ := zw.Create(name)
		if strings.HasSuffix(name, ".wav") {
			w.Write(wavBytes(t, uint64(60+i), 1, 8000, kindSpeech))
		} else {
			w.Write([]byte("not audio"))
		}
	}
	zw.Close()
	f.Close()
	zsrc, err := speechapi.FileSource(zpath)
	if err != nil {
		t.Fatal(err)
	}
	var files []speechapi.Source
	for i := range 97 {
		files = append(files, writeAudioFile(t, dir, fmt.Sprintf("f%02d.wav", i), wavBytes(t, uint64(i), 0.2, 8000, kindSpeech)))
	}
	files = append(files, zsrc)
	plan, err := speechapi.PlanJobs(files)
	if err != nil || len(plan) != 2 || len(plan[1]) != 1 {
		t.Fatalf("97 files and a zip of 4: plan %d groups, %v", len(plan), err)
	}
	created, err := e.client.CreateJobUpload(context.Background(), hiConfig, []speechapi.Source{zsrc}, "")
	if err != nil {
		t.Fatal(err)
	}
	if created.TotalFilesAccepted == nil || *created.TotalFilesAccepted != 3 {
		t.Errorf("accepted %v, want 3", created.TotalFilesAccepted)
	}
	if _, err := e.client.StartJob(context.Background(), created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitJob(context.Background(), created.JobID, fastPoll)
	if err != nil || job.Status != speechapi.JobPartialFailure || job.Progress.CompletedFiles != 3 {
		t.Fatalf("zip job %+v %v", job, err)
	}
	skipped, err := e.client.AllJobFiles(context.Background(), created.JobID, speechapi.FileSkipped)
	if err != nil || len(skipped) != 1 || skipped[0].OriginalPath != "notes.txt" {
		t.Errorf("skipped %+v %v", skipped, err)
	}
}

// conformance: BJ-098, ERR-035, BJ-035
func TestURLJobLongAndSilent(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/long.wav":
			w.Write(longWAV(t, 4*3600+60))
		case "/quiet.wav":
			w.Write(wavBytes(t, 1, 2, 8000, kindSilent))
		}
	}))
	defer store.Close()
	ctx := context.Background()
	created, err := e.client.CreateJobURLs(ctx, hiConfig, []string{store.URL + "/long.wav", store.URL + "/quiet.wav"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil || job.Status != speechapi.JobFailed || job.Progress.FailedFiles != 2 {
		t.Fatalf("job %+v %v", job, err)
	}
	recs, err := e.client.AllJobFiles(ctx, created.JobID, speechapi.FileFailed)
	if err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	if !strings.HasPrefix(*recs[0].ErrorMessage, "AUDIO_TOO_LONG") || !strings.Contains(*recs[1].ErrorMessage, "transcript empty after 3 retries") {
		t.Errorf("messages %q, %q", *recs[0].ErrorMessage, *recs[1].ErrorMessage)
	}
	if e.stats(t).BilledAudioSeconds != 0 {
		t.Error("failed files were billed")
	}
}

// conformance: ERR-017, ERR-018, ERR-019, ERR-026, ERR-034
func TestRecognitionRetriesFaults(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{FailRate: 0.3, RateLimit: 0.2, Seed: 7})
	c, err := speechapi.New(speechapi.Config{BaseURL: e.http.URL, APIKey: "k", Retries: 20,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	src := writeAudioFile(t, dir, "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech))
	for range 5 {
		if _, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.RunJob(ctx, hiConfig, []speechapi.Source{src}, speechapi.RunOptions{Poll: fastPoll})
	if err != nil || res.Jobs[0].Status != speechapi.JobCompleted {
		t.Fatal(err)
	}
	sub, err := c.SubmitLegacy(ctx, []speechapi.Source{src, src}, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if job, err := c.WaitLegacy(ctx, sub.JobID, fastPoll); err != nil || job.CompletedFiles != 2 {
		t.Fatalf("older batch under faults: %+v %v", job, err)
	}
	// A plain reader cannot be sent twice: a fault is then an error.
	one := speechapi.ReaderSource("once.wav", bytes.NewReader(wavBytes(t, 2, 1, 16000, kindSpeech)), -1)
	var failed bool
	for range 10 {
		if _, err := c.Transcribe(ctx, one, speechapi.TranscribeOptions{LanguageCode: "hi-IN"}); err != nil {
			failed = true
			break
		}
		one = speechapi.ReaderSource("once.wav", bytes.NewReader(wavBytes(t, 2, 1, 16000, kindSpeech)), -1)
	}
	if !failed {
		t.Error("ten one-shot uploads against a 50% fault rate all succeeded")
	}
	if st := e.stats(t); st.FaultsInjected["500"]+st.FaultsInjected["503"] == 0 || st.FaultsInjected["429"] == 0 {
		t.Errorf("faults injected %v: the test proved nothing", st.FaultsInjected)
	}
}
