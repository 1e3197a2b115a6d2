package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// conformance: OB-002, OB-003, OB-004, OB-005, OB-006, OB-007, OB-008, OB-009, OB-010, OB-011, OB-012,
// OB-013, OB-014, OB-015, OB-016, OB-018, OB-021, OB-022, OB-023, OB-024, OB-025, OB-027, OB-028, OB-029,
// OB-030, OB-031, OB-033
func TestLegacyBatch(t *testing.T) {
	// Real-time scale; each poll moves the emulator's clock on a second.
	e := newRecogEmu(t, emulator.Options{TimeScale: 1})
	dir := t.TempDir()
	ctx := context.Background()
	var files []speechapi.Source
	for i := range 12 {
		kind := kindSpeech
		if i == 11 {
			kind = kindSilent
		}
		files = append(files, writeAudioFile(t, dir, fmt.Sprintf("rec-%02d.wav", i), wavBytes(t, uint64(200+i), 1, 8000, kind)))
	}
	plan, err := speechapi.PlanLegacy(files)
	if err != nil || len(plan) != 2 || len(plan[0]) != 10 || len(plan[1]) != 2 {
		t.Fatalf("plan %v %v", len(plan), err)
	}
	var results []speechapi.LegacyResult
	var statuses []string
	for i, call := range plan {
		sub, err := e.client.SubmitLegacy(ctx, call, speechapi.LegacyOptions{LanguageCode: "mr-IN", RequestID: fmt.Sprintf("trace-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if sub.Status != "submitted" || sub.FileCount != len(call) || sub.JobID == "" || sub.Message == "" || sub.RequestID != fmt.Sprintf("trace-%d", i) {
			t.Fatalf("submit %+v", sub)
		}
		job, err := e.client.WaitLegacy(ctx, sub.JobID, speechapi.PollOptions{Interval: fastPoll.Interval,
			OnStatus: func(s string) {
				if !slices.Contains([]string{"submitted", "processing", "completed", "failed"}, s) {
					t.Fatalf("older batch status %q is not one of the four documented", s)
				}
				if len(statuses) == 0 || statuses[len(statuses)-1] != s {
					statuses = append(statuses, s)
				}
				checkLegacyRunning(t, e, sub.JobID)
				e.advance(time.Second)
			}})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(job.Raw) || !bytes.Contains(job.Raw, []byte(`"results"`)) {
			t.Errorf("raw status %s", job.Raw)
		}
		if job.TotalFiles != len(call) || job.OverallProgress != 100 || len(job.Results) != len(call) {
			t.Fatalf("job %+v", job)
		}
		failed := 0
		if i == 1 {
			failed = 1 // rec-11.wav is silent
		}
		if job.JobID != sub.JobID || job.Status != "completed" || job.CompletedFiles != len(call)-failed || job.FailedFiles != failed || job.Error != nil {
			t.Errorf("final status: job %q %s, %d completed, %d failed, error %v; want %s completed, %d and %d, no error",
				job.JobID, job.Status, job.CompletedFiles, job.FailedFiles, job.Error, sub.JobID, len(call)-failed, failed)
		}
		results = append(results, job.Results...)
	}
	if want := "[submitted processing completed submitted processing completed]"; fmt.Sprint(statuses) != want {
		t.Errorf("statuses seen %v", statuses)
	}
	for i, r := range results {
		if i == 11 {
			var fe *speechapi.FileError
			if !errors.As(r.Err("x"), &fe) || fe.Path != "rec-11.wav" || fe.Status != "failed" || r.Error == nil || *r.Error == "" {
				t.Errorf("silent file result %+v", r)
			}
			continue
		}
		if r.Err("x") != nil || r.Error != nil || r.Filename != fmt.Sprintf("rec-%02d.wav", i) || r.FullTranscript == "" || r.TotalDuration != 1 || len(r.Segments) == 0 {
			t.Fatalf("result %d: %+v", i, r)
		}
		for j, s := range r.Segments {
			if s.SegmentID != j || s.LanguageDetected != "mr-IN" || s.EndTime <= s.StartTime || s.EndTime > 1 || s.Text == "" {
				t.Errorf("segment %+v", s)
			}
		}
	}
	st := e.stats(t)
	if st.LegacyJobsSubmitted != 2 || st.FilesTranscribed != 11 || st.Requests["POST /stt/v3/batch/submit"] != 2 {
		t.Errorf("stats %+v", st)
	}
}

// checkLegacyRunning reads an older batch job's status and, while it is
// submitted or processing, asserts a progress from 0 to 100 and null
// results.
func checkLegacyRunning(t *testing.T, e *recogEmu, jobID string) {
	t.Helper()
	j, err := e.client.LegacyStatus(context.Background(), jobID, "")
	if err != nil {
		t.Fatal(err)
	}
	if j.Done() {
		return
	}
	if j.OverallProgress < 0 || j.OverallProgress > 100 || j.Results != nil || !bytes.Contains(j.Raw, []byte(`"results":null`)) {
		t.Errorf("%s job: overall_progress %d, results %s; want 0 to 100 and null", j.Status, j.OverallProgress, j.Raw)
	}
}

// conformance: OB-001, OB-017, OB-026
func TestLegacyMultiChannel(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	src := writeAudioFile(t, dir, "stereo.wav", stereoWAV(t, 8))
	sub, err := e.client.SubmitLegacy(ctx, []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "pa-IN", MultiChannel: true})
	if err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitLegacy(ctx, sub.JobID, fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	speakers := map[int]bool{}
	for _, s := range job.Results[0].Segments {
		speakers[s.SpeakerID] = true
	}
	if len(speakers) != 2 {
		t.Errorf("multi-channel speakers %v", speakers)
	}
	_, err = e.client.SubmitLegacy(ctx, []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "bn-BD"})
	if se := serviceError(t, err); se.StatusCode != 400 {
		t.Errorf("bn-BD: %v", se)
	}
}

// conformance: OB-032, OB-034, OB-037, ERR-020, ERR-021, ERR-022, ERR-023, ERR-024, ERR-025
func TestLegacyRejects(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	wav := wavBytes(t, 1, 1, 16000, kindSpeech)
	tests := []struct {
		name  string
		files []speechapi.Source
		want  string
	}{
		{"empty", []speechapi.Source{writeAudioFile(t, dir, "e.wav", nil)}, "empty"},
		{"mp3", []speechapi.Source{writeAudioFile(t, dir, "a.mp3", append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), wav...))}, "unsupported format"},
		{"an hour", []speechapi.Source{writeAudioFile(t, dir, "long.wav", longWAV(t, 3600))}, "shorter than 1 hour"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.SubmitLegacy(ctx, tc.files, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
			if se := serviceError(t, err); se.StatusCode != 400 || !strings.Contains(se.Message, tc.want) {
				t.Errorf("got %v, want 400 with %q", se, tc.want)
			}
		})
	}
	// The client refuses calls outside the limits; the emulator enforces
	// them for any other client.
	var eleven []speechapi.Source
	for i := range 11 {
		eleven = append(eleven, writeAudioFile(t, dir, fmt.Sprintf("f%d.wav", i), wav))
	}
	if _, err := e.client.SubmitLegacy(ctx, eleven, speechapi.LegacyOptions{LanguageCode: "hi-IN"}); err == nil || !strings.Contains(err.Error(), "PlanLegacy") {
		t.Errorf("11 files: %v", err)
	}
	status, body := rawMultipart(t, e.http.URL+"/stt/v3/batch/submit", map[string]string{"language_code": "hi-IN"}, "audio_files", 11, wav)
	if status != http.StatusBadRequest || !strings.Contains(body, "at most 10") {
		t.Errorf("11 files raw: %d %s", status, body)
	}
	status, body = rawMultipart(t, e.http.URL+"/stt/v3/batch/submit", map[string]string{"language_code": "hi-IN"}, "audio_files", 0, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "audio_files is required") {
		t.Errorf("no files: %d %s", status, body)
	}
	status, body = rawLarge(t, e.http.URL+"/stt/v3/batch/submit", "audio_files", 81_000_000)
	if status != http.StatusBadRequest || !strings.Contains(body, "80 MB") {
		t.Errorf("81 MB: %d %s", status, body)
	}
	_, err := e.client.LegacyStatus(ctx, "batch_unknown", "")
	if se := serviceError(t, err); se.StatusCode != 404 {
		t.Errorf("unknown job: %v", se)
	}
}

// conformance: OB-033, OB-034
func TestPlanLegacy(t *testing.T) {
	src := func(name string, size int64) speechapi.Source { return speechapi.Source{Name: name, Size: size} }
	sizes := func(plan [][]speechapi.Source) []int {
		var out []int
		for _, g := range plan {
			out = append(out, len(g))
		}
		return out
	}
	var small []speechapi.Source
	for i := range 25 {
		small = append(small, src(fmt.Sprint(i), 1000))
	}
	plan, err := speechapi.PlanLegacy(small)
	if err != nil || fmt.Sprint(sizes(plan)) != "[10 10 5]" {
		t.Errorf("25 small files: %v %v", sizes(plan), err)
	}
	plan, err = speechapi.PlanLegacy([]speechapi.Source{src("a", 30e6), src("b", 30e6), src("c", 30e6)})
	if err != nil || fmt.Sprint(sizes(plan)) != "[2 1]" {
		t.Errorf("3 x 30 MB: %v %v", sizes(plan), err)
	}
	var fe *speechapi.FileError
	if _, err := speechapi.PlanLegacy([]speechapi.Source{src("huge.wav", 80e6)}); !errors.As(err, &fe) || fe.Path != "huge.wav" {
		t.Errorf("80 MB file: %v", err)
	}
	if _, err := speechapi.PlanLegacy([]speechapi.Source{src("r.wav", -1)}); err == nil {
		t.Error("unknown size accepted")
	}
}

// conformance: OB-037, ERR-024
func TestLegacyFormats(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	clip := wavBytes(t, 81, 2, 16000, kindSpeech)
	var ok []speechapi.Source
	for name, args := range map[string][]string{
		"a.flac": {"-c:a", "flac"}, "a.ogg": {"-c:a", "libvorbis"}, "a.opus": {"-c:a", "libopus"},
		"a.aac": {"-c:a", "aac", "-f", "adts"}, "a.m4a": {"-c:a", "alac"},
	} {
		ok = append(ok, writeAudioFile(t, dir, name, ffmpegConvert(t, clip, dir, name, args...)))
	}
	ok = append(ok, writeAudioFile(t, dir, "a.wav", clip))
	sub, err := e.client.SubmitLegacy(ctx, ok, speechapi.LegacyOptions{LanguageCode: "te-IN"})
	if err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitLegacy(ctx, sub.JobID, fastPoll)
	if err != nil || job.Status != "completed" || job.CompletedFiles != len(ok) {
		t.Fatalf("job %+v %v", job, err)
	}
	mp3 := writeAudioFile(t, dir, "a.mp3", ffmpegConvert(t, clip, dir, "a.mp3", "-c:a", "libmp3lame"))
	_, err = e.client.SubmitLegacy(ctx, []speechapi.Source{mp3}, speechapi.LegacyOptions{LanguageCode: "te-IN"})
	if se := serviceError(t, err); se.StatusCode != 400 || !strings.Contains(se.Message, "unsupported format") {
		t.Errorf("mp3: %v", se)
	}
}
