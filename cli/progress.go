package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/untrusted"
)

// renderer turns executor events into output. All renderers are safe for
// concurrent use.
type renderer interface {
	Event(executor.Event)
	Close()
}

// newRenderer picks the output form: JSON messages, a live terminal display,
// or plain log lines.
func newRenderer(w io.Writer, jsonOut, terminal, color bool) renderer {
	switch {
	case jsonOut:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return &jsonRenderer{enc: enc}
	case terminal:
		return newLiveRenderer(w, color)
	default:
		return &plainRenderer{w: w}
	}
}

// jsonRenderer writes newline-delimited apply_start, apply_progress,
// apply_complete and apply_errored messages (SPEC section 5), and a final
// apply_summary that also lists every failure (address and message).
type jsonRenderer struct {
	mu  sync.Mutex
	enc *json.Encoder
}

type jsonApplyMessage struct {
	Type       string   `json:"type"`
	Time       string   `json:"time"`
	Address    string   `json:"address,omitempty"`
	Action     string   `json:"action,omitempty"`
	Total      int      `json:"total,omitempty"`
	Bytes      int64    `json:"bytes,omitempty"`
	JobID      string   `json:"job_id,omitempty"`
	JobStatus  string   `json:"job_status,omitempty"`
	FilesDone  int      `json:"files_done,omitempty"`
	FilesTotal int      `json:"files_total,omitempty"`
	Outputs    []string `json:"outputs,omitempty"`
	Elapsed    float64  `json:"elapsed_seconds,omitempty"`
	Error      string   `json:"error,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Skipped    bool     `json:"skipped,omitempty"`

	Done               *int    `json:"done,omitempty"`
	Failed             *int    `json:"failed,omitempty"`
	SkippedCount       *int    `json:"skipped_count,omitempty"`
	Interrupted        bool    `json:"interrupted,omitempty"`
	BilledCharacters   int64   `json:"billed_characters,omitempty"`
	BilledAudioSeconds float64 `json:"billed_audio_seconds,omitempty"`
	// Failures (apply_summary) are the failed resources, in address order.
	Failures []jsonFailure `json:"failures,omitempty"`
	// OrphansCancelled (apply_summary, orphans_cancelled) counts unrecorded
	// batch jobs found in CREATED and cancelled.
	OrphansCancelled int `json:"orphans_cancelled,omitempty"`
	// LowestConcurrency (apply_summary) is the concurrency 429s lowered
	// voxform to, when they did.
	LowestConcurrency int `json:"lowest_concurrency,omitempty"`
	// Warnings (apply_summary) are problems that did not fail the apply.
	Warnings []string `json:"warnings,omitempty"`
	// ServiceDown (apply_summary) says the service appeared down, naming
	// the host and the last failure: nothing new was started after it.
	ServiceDown string `json:"service_down,omitempty"`
	// ListenFailed (apply_summary) are the listening checks and seams
	// that fail in the state, ListenFailing how many there are; Takes the
	// takes made beyond the first (regeneration).
	ListenFailed  []jsonListenFailure `json:"listen_failed,omitempty"`
	ListenFailing int                 `json:"listen_failing,omitempty"`
	Takes         int                 `json:"takes,omitempty"`
	// Listen (apply_progress) is one listening check made: its chunk
	// (1-based; absent for an output sent whole), take and verdict.
	Listen *jsonListenProgress `json:"listen,omitempty"`
	// Message (warning) is the text of a warning.
	Message string `json:"message,omitempty"`
	// Count (orphans_cancelled) is the number of jobs cancelled.
	Count int `json:"count,omitempty"`
}

// jsonFailure is one failed resource in apply_summary.
type jsonFailure struct {
	Address string `json:"address"`
	Message string `json:"message"`
}

// jsonListenProgress is one listening check in apply_progress.
type jsonListenProgress struct {
	Chunk int    `json:"chunk,omitempty"`
	Of    int    `json:"of,omitempty"`
	Take  int    `json:"take"`
	Pass  bool   `json:"pass"`
	Why   string `json:"why,omitempty"`
}

// jsonListenFailure is one failing listening check or seam in
// apply_summary: chunk is 1-based (absent for an output sent whole).
type jsonListenFailure struct {
	Address string  `json:"address"`
	Chunk   int     `json:"chunk,omitempty"`
	Of      int     `json:"of,omitempty"`
	Seam    bool    `json:"seam,omitempty"`
	Start   float64 `json:"start_seconds,omitempty"`
	End     float64 `json:"end_seconds,omitempty"`
	Why     string  `json:"why"`
	Takes   int     `json:"takes,omitempty"`
}

func listenFailures(s *executor.Summary) []jsonListenFailure {
	var out []jsonListenFailure
	for _, f := range s.ListenFailed {
		out = append(out, jsonListenFailure{Address: f.Address, Chunk: f.Chunk + 1, Of: f.Of, Seam: f.Seam, Start: f.Start, End: f.End, Why: f.Why, Takes: f.Takes})
	}
	return out
}

func (r *jsonRenderer) Event(e executor.Event) {
	m := jsonApplyMessage{Time: e.Time.UTC().Format(time.RFC3339Nano), Address: e.Address, Action: e.Action}
	switch e.Kind {
	case executor.EventApplyStart:
		m.Type, m.Total = "apply_start", e.Total
		m.Address, m.Action = "", ""
	case executor.EventStart, executor.EventProgress, executor.EventRetry:
		m.Type = "apply_progress"
		m.Bytes, m.JobID, m.JobStatus, m.FilesDone, m.FilesTotal = e.Bytes, e.JobID, e.JobStatus, e.FilesDone, e.FilesTotal
		if l := e.Listen; l != nil {
			m.Listen = &jsonListenProgress{Chunk: l.Chunk + 1, Of: l.Of, Take: l.Take, Pass: l.Pass, Why: l.Why}
		}
		if e.Err != nil {
			m.Error = e.Err.Error()
		}
	case executor.EventDone:
		m.Type, m.Bytes, m.Elapsed = "apply_complete", e.Bytes, e.Elapsed.Seconds()
		m.JobID = e.JobID
		for _, o := range e.Outputs {
			m.Outputs = append(m.Outputs, o.Path)
		}
	case executor.EventFailed:
		m.Type, m.Error, m.Elapsed = "apply_errored", errString(e.Err), e.Elapsed.Seconds()
	case executor.EventSkipped:
		m.Type, m.Skipped, m.Reason = "apply_errored", true, e.Reason
	case executor.EventApplyDone:
		s := e.Summary
		m.Type = "apply_summary"
		m.Done, m.Failed, m.SkippedCount = &s.Done, &s.Failed, &s.Skipped
		m.Interrupted, m.BilledCharacters, m.BilledAudioSeconds = s.Interrupted, s.BilledCharacters, s.BilledAudioSeconds
		m.ServiceDown = errString(s.ServiceDown)
		m.Elapsed = s.Elapsed.Seconds()
		for _, fl := range s.Failures {
			m.Failures = append(m.Failures, jsonFailure{Address: fl.Address, Message: errString(fl.Err)})
		}
		m.OrphansCancelled, m.LowestConcurrency, m.Warnings = s.OrphansCancelled, s.LowestConcurrency, s.Warnings
		m.ListenFailed, m.ListenFailing, m.Takes = listenFailures(s), s.ListenFailing, s.Takes
	case executor.EventOrphansCancelled:
		m.Type, m.Count = "orphans_cancelled", e.Count
	case executor.EventWarning:
		m.Type, m.Message = "warning", errString(e.Err)
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.enc.Encode(&m)
}

func (r *jsonRenderer) Close() {}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// plainRenderer writes one line per finished resource: for logs and CI.
type plainRenderer struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *plainRenderer) Event(e executor.Event) {
	line := plainLine(e, false)
	if line == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(r.w, line)
}

func (r *plainRenderer) Close() {}

// plainLine is the log line of an event, or "" for events not logged.
// A failure's error is not in it: the summary lists each failure once.
// What a state or the service wrote (addresses, job ids and statuses,
// errors) is escaped.
func plainLine(e executor.Event, color bool) string {
	e.Address, e.JobID, e.JobStatus, e.Reason = untrusted.Escape(e.Address), untrusted.Escape(e.JobID), untrusted.Escape(e.JobStatus), untrusted.Escape(e.Reason)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	switch e.Kind {
	case executor.EventStart:
		if e.JobID != "" {
			return fmt.Sprintf("%s: %s (job %s)", e.Address, pastAction(e.Action, false), e.JobID)
		}
		return fmt.Sprintf("%s: %s...", e.Address, pastAction(e.Action, false))
	case executor.EventDone:
		detail := []string{}
		if e.Bytes > 0 {
			detail = append(detail, formatBytes(e.Bytes))
		}
		if e.JobID != "" {
			detail = append(detail, "job "+e.JobID)
		}
		detail = append(detail, e.Elapsed.Round(time.Millisecond).String())
		return fmt.Sprintf("%s: %s (%s)", e.Address, paint("32", pastAction(e.Action, true)), strings.Join(detail, ", "))
	case executor.EventFailed:
		return fmt.Sprintf("%s: %s (the error is listed at the end)", e.Address, paint("31", "failed"))
	case executor.EventSkipped:
		return fmt.Sprintf("%s: %s: %s", e.Address, paint("33", "skipped"), e.Reason)
	case executor.EventRetry:
		return fmt.Sprintf("%s: retrying: %s", e.Address, untrusted.Lines(errString(e.Err)))
	case executor.EventOrphansCancelled:
		return fmt.Sprintf("cancelled %d orphan batch job(s) of an interrupted apply (never started, never billed)", e.Count)
	case executor.EventWarning:
		return fmt.Sprintf("%s: %s", paint("33", "warning"), untrusted.Lines(errString(e.Err)))
	case executor.EventProgress:
		if l := e.Listen; l != nil && !l.Pass {
			return fmt.Sprintf("%s: %s failed its listening check (take %d): %s", e.Address, listenItem(l), l.Take, untrusted.Lines(l.Why))
		}
		if e.JobID != "" && e.FilesTotal > 0 {
			return fmt.Sprintf("%s: job %s %s, %d/%d files", e.Address, e.JobID, e.JobStatus, e.FilesDone, e.FilesTotal)
		}
	}
	return ""
}

// listenItem names what a listening check heard: the output, or a chunk.
func listenItem(l *executor.ListenProgress) string {
	if l.Chunk < 0 {
		return "the output"
	}
	return fmt.Sprintf("chunk %d of %d", l.Chunk+1, l.Of)
}

func pastAction(action string, done bool) string {
	verbs := map[string][2]string{
		"create":  {"creating", "created"},
		"replace": {"replacing", "replaced"},
		"repair":  {"repairing", "repaired"},
		"move":    {"moving", "moved"},
		"resume":  {"resuming", "resumed"},
		"delete":  {"deleting", "deleted"},
		"check":   {"checking", "checked"},
	}
	v, ok := verbs[action]
	if !ok {
		v = [2]string{action, action + " done"}
	}
	if done {
		return v[1]
	}
	return v[0]
}

// formatBytes prints a byte count for people: 512 B, 12.3 KB, 4.5 MB.
func formatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
