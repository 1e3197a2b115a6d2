package executor

import (
	"time"

	"github.com/voxform/voxform/state"
)

// EventKind says what an Event reports.
type EventKind string

// Event kinds, in the order a resource goes through them.
const (
	// EventApplyStart is sent once, before any work, with Total.
	EventApplyStart EventKind = "apply_start"
	// EventStart: work on Address began.
	EventStart EventKind = "resource_start"
	// EventProgress: Bytes written so far, or a batch job's file counts.
	EventProgress EventKind = "resource_progress"
	// EventDone: Address completed and was recorded.
	EventDone EventKind = "resource_done"
	// EventFailed: Address failed with Err; its dependents will be skipped.
	EventFailed EventKind = "resource_failed"
	// EventSkipped: Address did not run (Reason says why).
	EventSkipped EventKind = "resource_skipped"
	// EventRetry: a call for Address is being retried after Err.
	EventRetry EventKind = "resource_retry"
	// EventOrphansCancelled: Count batch jobs that an interrupted apply
	// created but never recorded were found in CREATED and cancelled
	// ("cancelled N orphan batch job(s)"); they were never billed.
	EventOrphansCancelled EventKind = "orphans_cancelled"
	// EventWarning: a problem (Err) that does not fail the apply, such as
	// a jobs listing the service does not offer.
	EventWarning EventKind = "warning"
	// EventApplyDone is sent once, at the end, with the Summary.
	EventApplyDone EventKind = "apply_done"
)

// Event is one report of the executor's progress. Renderers (the CLI's
// terminal, plain and JSON outputs) turn events into what a user sees.
type Event struct {
	Kind    EventKind
	Time    time.Time
	Address string
	Action  string // create, replace, repair, move, resume, delete
	Total   int    // EventApplyStart: number of resources to process

	Bytes      int64  // EventProgress / EventDone: bytes written
	JobID      string // batch job id, when one is involved
	JobStatus  string
	FilesDone  int
	FilesTotal int

	Outputs []state.Output // EventDone
	Elapsed time.Duration  // EventDone / EventFailed
	Err     error          // EventFailed / EventRetry
	Reason  string         // EventSkipped
	Count   int            // EventOrphansCancelled

	Summary *Summary // EventApplyDone
	// Listen (EventProgress) is the outcome of one listening check.
	Listen *ListenProgress
}

// ListenProgress is one listening check made during an apply: of take
// Take of chunk Chunk of Of (Chunk -1: the output sent whole).
type ListenProgress struct {
	Chunk, Of, Take int
	Pass            bool
	// Why says why it failed (planner.FailureLine).
	Why string
}

// Summary counts what an apply did.
type Summary struct {
	Done, Failed, Skipped int
	// Interrupted reports that a stop request ended the apply early.
	Interrupted bool
	// ServiceDown, when set, is why the apply started nothing new after
	// the service appeared down (a *speechapi.DownError naming the host
	// and the last failure); work in flight finished and was recorded.
	ServiceDown error
	// Failures lists each failure with its address, in address order.
	Failures []Failure
	// BilledCharacters and BilledAudioSeconds are what the completed work
	// was billed, as the service counts.
	BilledCharacters   int64
	BilledAudioSeconds float64
	// OrphansCancelled counts the unrecorded batch jobs found in CREATED
	// and cancelled (SPEC section 4).
	OrphansCancelled int
	// Warnings are problems that did not fail the apply.
	Warnings []string
	// LowestConcurrency is, when 429s made voxform lower its own
	// concurrency, the lowest it fell to ("rate limited: concurrency
	// lowered to N"); 0 when it never had to (or without Options.Limiter).
	LowestConcurrency int
	Elapsed           time.Duration
	// ListenFailed lists the listening checks and seams that fail in the
	// state at the end of the apply, in address order: those this apply
	// recorded and those recorded earlier (a failure stays red until its
	// output passes); at most MaxListenFailuresListed of ListenFailing.
	ListenFailed  []ListenFailure
	ListenFailing int
	// Takes counts the takes made beyond the first of each output or
	// chunk: what regeneration billed.
	Takes int
}

// MaxListenFailuresListed bounds Summary.ListenFailed; the rest are only
// counted (Summary.ListenFailing).
const MaxListenFailuresListed = 1000

// ListenFailure is a recorded listening check, or a seam between two
// chunks, that fails.
type ListenFailure struct {
	Address string
	// Chunk is the chunk checked, of Of (-1: the output sent whole); for
	// a seam, the chunk before it.
	Chunk, Of int
	// Seam is set for a seam between chunk Chunk and the next.
	Seam bool
	// Start and End place the chunk in the joined output, in seconds (a
	// seam: Start is where it is).
	Start, End float64
	// Why says what fails (planner.FailureLine, or the seam's limits).
	Why string
	// Takes is how many takes were made of it (0 or 1: one).
	Takes int
}

// Failure is one resource that failed.
type Failure struct {
	Address string
	Err     error
}
