package emu

import (
	"encoding/json"
	"sync"
	"time"
)

// Stats counts what the emulator was asked and what it did. Its JSON form is
// the fixed shape of GET /_emulator/stats (SPEC section 8); more keys may be
// added, none removed or renamed.
type Stats struct {
	mu sync.Mutex
	s  statsJSON
	// polls is each batch job's status answers (both APIs): how many, and
	// the time of the last; inFlight the jobs in flight (see
	// statsJSON.BatchJobsMaxInFlight).
	polls    map[string]*jobPolls
	inFlight map[string]bool
	// faults lists the faulted syntheses (at most MaxSpeechFaultsListed);
	// unlisted counts those past the bound.
	faults   []*SpeechFault
	unlisted int64
}

type jobPolls struct {
	n    int64
	last time.Time
}

type statsJSON struct {
	Requests       map[string]int64 `json:"requests"`
	FaultsInjected map[string]int64 `json:"faults_injected"`
	// FaultsByRoute counts the injected faults of each route by kind.
	FaultsByRoute map[string]map[string]int64 `json:"faults_by_route"`
	// RateLimited counts the requests the rate limit (Options.RPS)
	// answered 429, apart from injected 429s; RateLimitedByRoute by route.
	RateLimited                  int64            `json:"rate_limited"`
	RateLimitedByRoute           map[string]int64 `json:"rate_limited_by_route"`
	BilledCharacters             int64            `json:"billed_characters"`
	BilledAudioSeconds           float64          `json:"billed_audio_seconds"`
	EmbeddingsCreated            int64            `json:"embeddings_created"`
	BatchJobsCreated             int64            `json:"batch_jobs_created"`
	BatchJobsStarted             int64            `json:"batch_jobs_started"`
	BatchJobsCancelled           int64            `json:"batch_jobs_cancelled"`
	LegacyJobsSubmitted          int64            `json:"legacy_jobs_submitted"`
	FilesTranscribed             int64            `json:"files_transcribed"`
	PresignedDownloads           int64            `json:"presigned_downloads"`
	PresignedDownloadsWithAPIKey int64            `json:"presigned_downloads_with_api_key"`
	WebhooksSent                 int64            `json:"webhooks_sent"`
	Syntheses                    int64            `json:"syntheses"`
	// SpeechFaults counts the syntheses whose audio carries a speech
	// fault, by kind (SpeechFaultKinds).
	SpeechFaults map[string]int64 `json:"speech_faults"`
	// BatchJobsMaxInFlight is the most batch jobs (both APIs) in flight
	// at once: a job is from its create (or older submit) until a status
	// answer first shows it ended, or its cancel.
	BatchJobsMaxInFlight int64 `json:"batch_jobs_max_in_flight"`
	// BatchPolls sums up the status answers of batch jobs (both APIs).
	BatchPolls batchPolls `json:"batch_polls"`
}

// batchPolls is how often batch jobs were asked for their status. Only
// answered requests count: one refused by an injected fault or the rate
// limit never reached the job.
type batchPolls struct {
	// Jobs is the number of jobs asked at least once, Requests the status
	// answers, MaxPerJob the most answers of one job.
	Jobs      int64 `json:"jobs"`
	Requests  int64 `json:"requests"`
	MaxPerJob int64 `json:"max_per_job"`
	// MinGapSeconds is the shortest time between two status answers of
	// one job, on the emulator's clock (null until a job was asked twice).
	MinGapSeconds *float64 `json:"min_gap_seconds"`
	// Early counts status answers that came sooner after the job's
	// previous one than the documents ask of a client (see JobPolled).
	Early int64 `json:"early"`
}

// Counter names accepted by Inc.
const (
	EmbeddingsCreated            = "embeddings_created"
	BatchJobsCreated             = "batch_jobs_created"
	BatchJobsStarted             = "batch_jobs_started"
	BatchJobsCancelled           = "batch_jobs_cancelled"
	LegacyJobsSubmitted          = "legacy_jobs_submitted"
	FilesTranscribed             = "files_transcribed"
	PresignedDownloads           = "presigned_downloads"
	PresignedDownloadsWithAPIKey = "presigned_downloads_with_api_key"
	WebhooksSent                 = "webhooks_sent"
	Syntheses                    = "syntheses"
)

// NewStats returns empty statistics.
func NewStats() *Stats {
	s := &Stats{}
	s.Reset()
	return s
}

// Request counts one request to a route ("METHOD path-template").
func (s *Stats) Request(route string) {
	s.mu.Lock()
	s.s.Requests[route]++
	s.mu.Unlock()
}

// Fault counts one injected fault: "500", "503", "429" or "drop".
func (s *Stats) Fault(kind string) {
	s.mu.Lock()
	s.s.FaultsInjected[kind]++
	s.mu.Unlock()
}

// RouteFault counts one injected fault of a route, in the totals and by
// route.
func (s *Stats) RouteFault(route, kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.FaultsInjected[kind]++
	if s.s.FaultsByRoute[route] == nil {
		s.s.FaultsByRoute[route] = map[string]int64{}
	}
	s.s.FaultsByRoute[route][kind]++
}

// RateLimit counts one request of a route that the rate limit refused.
func (s *Stats) RateLimit(route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.RateLimited++
	s.s.RateLimitedByRoute[route]++
}

// BillCharacters adds billed synthesis characters.
func (s *Stats) BillCharacters(n int64) {
	s.mu.Lock()
	s.s.BilledCharacters += n
	s.mu.Unlock()
}

// BillAudioSeconds adds billed recognition audio seconds.
func (s *Stats) BillAudioSeconds(sec float64) {
	s.mu.Lock()
	s.s.BilledAudioSeconds += sec
	s.mu.Unlock()
}

// Inc adds one to a named counter (the constants above).
func (s *Stats) Inc(counter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch counter {
	case EmbeddingsCreated:
		s.s.EmbeddingsCreated++
	case BatchJobsCreated:
		s.s.BatchJobsCreated++
	case BatchJobsStarted:
		s.s.BatchJobsStarted++
	case BatchJobsCancelled:
		s.s.BatchJobsCancelled++
	case LegacyJobsSubmitted:
		s.s.LegacyJobsSubmitted++
	case FilesTranscribed:
		s.s.FilesTranscribed++
	case PresignedDownloads:
		s.s.PresignedDownloads++
	case PresignedDownloadsWithAPIKey:
		s.s.PresignedDownloadsWithAPIKey++
	case WebhooksSent:
		s.s.WebhooksSent++
	case Syntheses:
		s.s.Syntheses++
	default:
		panic("emu: unknown counter " + counter)
	}
}

// JobCreated counts batch job id in flight from its create (or older
// submit).
func (s *Stats) JobCreated(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight[id] = true
	s.s.BatchJobsMaxInFlight = max(s.s.BatchJobsMaxInFlight, int64(len(s.inFlight)))
}

// JobPolled records a status answer about batch job id at time at. minGap
// is the documented minimum between two polls of the job, a guidance the
// service does not enforce: an answer sooner after the previous one
// counts as early. ended says the answer shows the job ended: it is no
// longer in flight.
func (s *Stats) JobPolled(id string, at time.Time, minGap time.Duration, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &s.s.BatchPolls
	jp := s.polls[id]
	if jp == nil {
		jp = &jobPolls{}
		s.polls[id] = jp
		p.Jobs++
	} else {
		gap := at.Sub(jp.last)
		if p.MinGapSeconds == nil || gap.Seconds() < *p.MinGapSeconds {
			sec := gap.Seconds()
			p.MinGapSeconds = &sec
		}
		if gap < minGap {
			p.Early++
		}
	}
	jp.n++
	jp.last = at
	p.Requests++
	p.MaxPerJob = max(p.MaxPerJob, jp.n)
	if ended {
		delete(s.inFlight, id)
	}
}

// JobCancelled takes batch job id out of flight: its client is done with
// it.
func (s *Stats) JobCancelled(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inFlight, id)
}

// MarshalJSON returns the stats document.
func (s *Stats) MarshalJSON() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return json.Marshal(&s.s)
}

// Reset clears every counter and the list of speech faults, and forgets
// every job: one created before counts neither in flight nor with its
// earlier status answers.
func (s *Stats) Reset() {
	s.mu.Lock()
	s.s = emptyStats()
	s.polls, s.inFlight = map[string]*jobPolls{}, map[string]bool{}
	s.faults, s.unlisted = nil, 0
	s.mu.Unlock()
}

func emptyStats() statsJSON {
	return statsJSON{Requests: map[string]int64{}, FaultsInjected: map[string]int64{}, FaultsByRoute: map[string]map[string]int64{},
		RateLimitedByRoute: map[string]int64{}, SpeechFaults: map[string]int64{}}
}
