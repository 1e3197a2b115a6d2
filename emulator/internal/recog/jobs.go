package recog

import (
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Batch job statuses (speech-recognition.md, "Batch jobs, job statuses").
const (
	stCreated        = "CREATED"
	stStarting       = "STARTING"
	stQueued         = "QUEUED"
	stInProgress     = "IN_PROGRESS"
	stCompleted      = "COMPLETED"
	stPartialFailure = "PARTIAL_FAILURE"
	stFailed         = "FAILED"
	stStartFailed    = "START_FAILED"
	stCancelling     = "CANCELLING"
	stCancelled      = "CANCELLED"
)

// File statuses.
const (
	fileCompleted = "COMPLETED"
	fileFailed    = "FAILED"
	fileSkipped   = "SKIPPED"
	fileCancelled = "CANCELLED"
)

func terminal(status string) bool {
	switch status {
	case stCompleted, stPartialFailure, stFailed, stStartFailed, stCancelled:
		return true
	}
	return false
}

// Service-time durations of the job state machine, scaled by TimeScale.
const (
	startingFor   = 2 * time.Second
	queuedFor     = 2 * time.Second
	cancellingFor = 2 * time.Second
	perFile       = 2 * time.Second
	workers       = 4
	maxFileAudio  = 4 * time.Hour
)

// The documented minimum between two status polls of one job
// (speech-recognition.md, "Limits"), in real time whatever TimeScale: a
// guidance the service does not enforce. The stats count the polls that
// come sooner (batch_polls.early).
const (
	pollGuidance       = 10 * time.Second
	pollGuidanceMany   = 30 * time.Second // a job of pollManyFiles files or more
	pollManyFiles      = 100
	legacyPollGuidance = 60 * time.Second
)

// pollGuidanceOf is the guidance for polls of j.
func pollGuidanceOf(j *job) time.Duration {
	if len(j.files) >= pollManyFiles {
		return pollGuidanceMany
	}
	return pollGuidance
}

// jobConfig is a batch job's config object.
type jobConfig struct {
	Model           string `json:"model"`
	LanguageCode    string `json:"language_code"`
	Mode            string `json:"mode"`
	WithDiarization bool   `json:"with_diarization"`
	NumSpeakers     *int   `json:"num_speakers"`
	IsMultiChannel  bool   `json:"is_multi_channel"`
	WithDenoise     *bool  `json:"with_denoise,omitempty"`
}

// job is a batch job. Its status is computed lazily from timestamps and the
// clock by advance, which also applies each transition's effects once.
type job struct {
	id       string
	cfg      jobConfig
	langs    []string
	callback string
	urlJob   bool
	paths    []string
	files    []*jobFile

	status       string
	created      time.Time
	started      time.Time
	fetched      bool // URL job: sources fetched and checked
	fetchedAt    time.Time
	scheduled    bool
	queuedAt     time.Time
	runningAt    time.Time
	cancelledAt  time.Time // the cancel call
	ended        time.Time // terminal transition
	updated      time.Time
	cancelReason *string
}

// jobFile is one file of a job.
type jobFile struct {
	id, path  string
	a         *analysis // nil when skipped before analysis
	status    string    // "" until processed
	errMsg    string
	lang      string
	created   time.Time
	begin     time.Time
	due       time.Time
	completed time.Time
}

func (j *job) denoise() bool { return j.cfg.WithDenoise != nil && *j.cfg.WithDenoise }

func (j *job) speakers() int {
	if j.cfg.WithDiarization && j.cfg.NumSpeakers != nil {
		return *j.cfg.NumSpeakers
	}
	return 1
}

// advance brings j up to now. The caller holds s.mu.
func (s *service) advance(j *job, now time.Time) {
	switch {
	case terminal(j.status), j.status == stCreated:
		return
	case j.status == stCancelling:
		if at := j.cancelledAt.Add(s.env.Scaled(cancellingFor)); !now.Before(at) {
			s.finish(j, stCancelled, at)
		}
		return
	case j.urlJob && !j.fetched:
		return // STARTING while sources are fetched
	}
	ready := j.started.Add(s.env.Scaled(startingFor))
	if j.fetchedAt.After(ready) {
		ready = j.fetchedAt
	}
	if now.Before(ready) {
		return
	}
	if j.urlJob && countStatus(j.files, fileSkipped) == len(j.files) {
		reason := "START_FAILED: none of the source paths could be fetched; see the file records"
		j.cancelReason = &reason
		s.finish(j, stStartFailed, ready)
		return
	}
	if !j.scheduled {
		s.schedule(j, ready)
	}
	if now.Before(j.runningAt) {
		j.status = stQueued
		return
	}
	j.status = stInProgress
	last := j.runningAt
	for _, f := range j.files {
		if f.status == "" && !now.Before(f.due) {
			s.process(j, f)
		}
		if f.due.After(last) {
			last = f.due
		}
	}
	if countStatus(j.files, "") == 0 {
		s.finish(j, outcome(j.files), last)
	}
}

// schedule gives each waiting file its processing slot on one of the
// workers: a fixed cost plus a tenth of the audio duration, plus a quarter
// of it with denoise (with_denoise rule 2).
func (s *service) schedule(j *job, ready time.Time) {
	j.scheduled = true
	j.queuedAt = ready
	j.runningAt = ready.Add(s.env.Scaled(queuedFor))
	var free [workers]time.Time
	for i := range free {
		free[i] = j.runningAt
	}
	for i, f := range j.files {
		if f.status != "" {
			continue
		}
		cost := perFile
		if f.a != nil {
			sec := min(f.a.Seconds, maxFileAudio.Seconds())
			cost += time.Duration(sec * 0.1 * float64(time.Second))
			if j.denoise() {
				cost += time.Duration(sec * 0.25 * float64(time.Second))
			}
		}
		w := i % workers
		f.begin = free[w]
		f.due = f.begin.Add(s.env.Scaled(cost))
		free[w] = f.due
	}
}

// process ends one file's processing: COMPLETED and billed, or FAILED.
func (s *service) process(j *job, f *jobFile) {
	f.completed = f.due
	switch a := f.a; {
	case a.Seconds > maxFileAudio.Seconds():
		f.status, f.errMsg = fileFailed, "AUDIO_TOO_LONG: the audio is longer than 4 hours"
	case a.Silent || a.Tone || len(a.segments(j.langs[0], 1, 0)) == 0:
		f.status, f.errMsg = fileFailed, "transcript empty after 3 retries: no speech was detected in the audio"
	default:
		f.status = fileCompleted
		f.lang = identify(j.langs, a.Spoken.Language)
		s.env.Stats.Inc(emu.FilesTranscribed)
		s.env.Stats.BillAudioSeconds(a.Seconds)
	}
}

// outcome is the terminal status of a job whose files are all done
// (SPEC section 8a): COMPLETED when all completed, FAILED when none did.
func outcome(files []*jobFile) string {
	switch done := countStatus(files, fileCompleted); {
	case done == len(files):
		return stCompleted
	case done == 0:
		return stFailed
	}
	return stPartialFailure
}

func countStatus(files []*jobFile, status string) int {
	n := 0
	for _, f := range files {
		if f.status == status {
			n++
		}
	}
	return n
}

// finish makes j terminal at time at and queues its webhook.
func (s *service) finish(j *job, status string, at time.Time) {
	j.status, j.ended, j.updated = status, at, at
	if j.callback != "" {
		s.pending = append(s.pending, s.webhookFor(j))
	}
}
