package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
)

// The batch transcription targets of issue 18 (B1 to B6): one block of
// h.sz.batchFiles short recordings applied at -parallelism 16 against an
// emulator that voxform polls as it polls the service
// (VOXFORM_POLL=documented).
const (
	batchParallelism = 16        // B2's configured limit
	batchRSS         = 256 << 20 // B6, bytes
)

// batchStats is the part of GET /_emulator/stats the batch step reads.
type batchStats struct {
	Requests         map[string]int64 `json:"requests"`
	BatchJobsCreated int64            `json:"batch_jobs_created"`
	BatchJobsStarted int64            `json:"batch_jobs_started"`
	FilesTranscribed int64            `json:"files_transcribed"`
	MaxInFlight      int64            `json:"batch_jobs_max_in_flight"`
	Polls            struct {
		Jobs          int64    `json:"jobs"`
		Requests      int64    `json:"requests"`
		MaxPerJob     int64    `json:"max_per_job"`
		MinGapSeconds *float64 `json:"min_gap_seconds"`
		Early         int64    `json:"early"`
	} `json:"batch_polls"`
}

// batchScale measures B1 to B6: the jobs a batch transcription of many
// files was split into, how many were in flight at once, the status
// requests of each and the shortest time between two of one job (all as
// the emulator saw them), the wall time and the peak RSS.
func (h *harness) batchScale(ctx context.Context) error {
	n := h.sz.batchFiles
	dir := filepath.Join(h.work, "batch")
	if err := writeRecordings(dir, n); err != nil {
		return fmt.Errorf("generate %d recordings: %w", n, err)
	}
	// Jobs move through their states 1000 times faster than the
	// service's: each is done long before its first poll, 30 s after its
	// start. The documented interval, not the jobs, sets the pace.
	e, err := startEmulator(emulator.Options{TimeScale: 1000})
	if err != nil {
		return err
	}
	defer e.stop()
	h.r.env = []string{"VOXFORM_POLL=documented"}
	defer func() { h.r.env = nil }()
	m, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", batchParallelism))
	if err != nil {
		return err
	}
	var st batchStats
	if err := e.statsInto(ctx, &st); err != nil {
		return err
	}
	files, _, err := countFiles(filepath.Join(dir, "build", "transcripts"))
	if err != nil {
		return err
	}
	jobs := int64((n + contract.MaxJobFiles - 1) / contract.MaxJobFiles)
	if st.FilesTranscribed != int64(n) || files != 3*n || st.BatchJobsStarted != st.BatchJobsCreated || st.Polls.Jobs != st.BatchJobsCreated {
		return fmt.Errorf("batch transcription of %d files: %d transcribed, %d transcript files, %d jobs created, %d started, %d polled: see %s",
			n, st.FilesTranscribed, files, st.BatchJobsCreated, st.BatchJobsStarted, st.Polls.Jobs, m.LogPath)
	}
	h.batchFigures(n, jobs, m, st)
	return nil
}

// batchFigures adds B1 to B6.
func (h *harness) batchFigures(n int, jobs int64, m measured, st batchStats) {
	what := func(s string) string { return fmt.Sprintf(s, numfmt.Thousands(n)) }
	apply := fmt.Sprintf("`VOXFORM_POLL=documented voxform apply -auto-approve -parallelism=%d`", batchParallelism)
	h.add(result{ID: "B1", What: what("batch jobs of a transcription of %s files"), Target: fmt.Sprintf("%d (at most %d files a job)", jobs, contract.MaxJobFiles),
		Figure: fmt.Sprint(st.BatchJobsCreated), Verdict: h.verdict(st.BatchJobsCreated == jobs, false),
		Details: []string{fmt.Sprintf("%s of %s recordings of %d s (16 kHz WAV), api batch with diarization, formats json, txt, srt: %d jobs created and started, %s files transcribed, %s transcript files written",
			apply, numfmt.Thousands(n), recordingSeconds, st.BatchJobsCreated, numfmt.Thousands(int(st.FilesTranscribed)), numfmt.Thousands(3*n))}})

	h.add(result{ID: "B2", What: fmt.Sprintf("batch jobs in flight at once, -parallelism %d", batchParallelism), Target: fmt.Sprintf("> 1, <= %d", batchParallelism),
		Figure: fmt.Sprint(st.MaxInFlight), Verdict: h.verdict(st.MaxInFlight > 1 && st.MaxInFlight <= batchParallelism, false),
		Details: []string{"the emulator's batch_jobs_max_in_flight: a job is in flight from its create until a status answer shows it ended"}})

	mean := float64(st.Polls.Requests) / float64(max(st.Polls.Jobs, 1))
	h.add(result{ID: "B3", What: "status requests per batch job", Target: "reported",
		Figure: fmt.Sprintf("mean %.2f, max %d", mean, st.Polls.MaxPerJob), Verdict: h.verdict(true, false),
		Details: []string{fmt.Sprintf("the emulator's batch_polls: %d status requests of %d jobs (GET /stt/v3/batch/jobs/{job_id}: %d); "+
			"each job is asked once before its start (is it still CREATED?), then every %s until it has ended",
			st.Polls.Requests, st.Polls.Jobs, st.Requests["GET /stt/v3/batch/jobs/{job_id}"], wholeSecs(contract.JobPollIntervalMany))}})

	gap, ok := 0.0, st.Polls.MinGapSeconds != nil
	if ok {
		gap = *st.Polls.MinGapSeconds
	}
	figure := fmt.Sprintf("%.3f s, %d sooner than documented", gap, st.Polls.Early)
	if !ok {
		figure = "no job asked twice"
	}
	h.add(result{ID: "B4", What: "shortest time between two status requests of one job (jobs of 100 files)", Target: fmt.Sprintf(">= %s, none sooner", wholeSecs(contract.JobPollIntervalMany)),
		Figure: figure, Verdict: h.verdict(ok && gap >= contract.JobPollIntervalMany.Seconds() && st.Polls.Early == 0, false),
		Details: []string{"the emulator's batch_polls.min_gap_seconds and early (answers sooner after the job's previous one than speech-recognition.md's \"Limits\" ask: 10 s, 30 s for 100 files or more), on its clock"}})

	rounds := (jobs + batchParallelism - 1) / batchParallelism
	floor := time.Duration(rounds) * contract.JobPollIntervalMany
	h.add(result{ID: "B5", What: what("wall time of that apply of %s files"), Target: fmt.Sprintf("reported (floor %d x %s = %s)", rounds, wholeSecs(contract.JobPollIntervalMany), wholeSecs(floor)),
		Figure: secs(m.Wall) + " s", Verdict: h.verdict(true, false),
		Details: []string{fmt.Sprintf("whole process, one run: %s s wall, %s; the floor is %d jobs, %d at a time, each polled %s after its start; the emulator runs each job in well under a second (-time-scale 1000)",
			secs(m.Wall), cpuNote(m), jobs, batchParallelism, wholeSecs(contract.JobPollIntervalMany))}})

	h.add(result{ID: "B6", What: what("peak RSS of that apply of %s files"), Target: "< " + mib(batchRSS),
		Figure: mib(m.MaxRSS), Verdict: h.verdict(m.MaxRSS < batchRSS, true),
		Details: []string{"GNU time's maximum resident set size of the voxform process"}})
}

// wholeSecs formats a duration of whole seconds: "30 s".
func wholeSecs(d time.Duration) string { return fmt.Sprintf("%.0f s", d.Seconds()) }
