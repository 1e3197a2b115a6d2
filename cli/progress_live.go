package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/untrusted"
)

// liveRenderer shows finished resources as log lines and keeps one status
// line at the bottom of the terminal: resources done/total, bytes written,
// batch jobs' file counts and an estimate of the time left.
type liveRenderer struct {
	mu      sync.Mutex
	w       io.Writer
	color   bool
	start   time.Time
	total   int
	done    int
	bytes   int64
	running map[string]bool
	jobs    map[string]executor.Event // by job id: the last progress seen
	last    time.Time
	drawn   bool
}

func newLiveRenderer(w io.Writer, color bool) *liveRenderer {
	return &liveRenderer{w: w, color: color, start: time.Now(), running: map[string]bool{}, jobs: map[string]executor.Event{}}
}

func (r *liveRenderer) Event(e executor.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case executor.EventApplyStart:
		r.total, r.start = e.Total, e.Time
	case executor.EventStart:
		r.running[e.Address] = true
	case executor.EventDone, executor.EventFailed, executor.EventSkipped:
		delete(r.running, e.Address)
		r.done++
		r.bytes += e.Bytes
		if e.JobID != "" {
			delete(r.jobs, e.JobID)
		}
	case executor.EventProgress:
		if e.JobID != "" {
			r.jobs[e.JobID] = e
		}
	}
	if line := plainLine(e, r.color); line != "" && e.Kind != executor.EventStart && e.Kind != executor.EventProgress {
		r.clear()
		fmt.Fprintln(r.w, line)
		r.drawn = false
	}
	if now := time.Now(); now.Sub(r.last) > 100*time.Millisecond || !r.drawn {
		r.last = now
		r.draw()
	}
}

// clear erases the status line.
func (r *liveRenderer) clear() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\x1b[2K")
	}
}

func (r *liveRenderer) draw() {
	if r.total == 0 {
		return
	}
	parts := []string{fmt.Sprintf("[%d/%d]", r.done, r.total)}
	if n := len(r.running); n > 0 {
		parts = append(parts, fmt.Sprintf("%d running", n))
	}
	if r.bytes > 0 {
		parts = append(parts, formatBytes(r.bytes))
	}
	ids := make([]string, 0, len(r.jobs))
	for id := range r.jobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		j := r.jobs[id]
		parts = append(parts, fmt.Sprintf("job %s %s %d/%d files", untrusted.Escape(shortID(id)), untrusted.Escape(j.JobStatus), j.FilesDone, j.FilesTotal))
	}
	if r.done > 0 && r.done < r.total {
		elapsed := time.Since(r.start)
		eta := time.Duration(float64(elapsed) / float64(r.done) * float64(r.total-r.done))
		parts = append(parts, "ETA "+eta.Round(time.Second).String())
	}
	r.clear()
	fmt.Fprint(r.w, strings.Join(parts, " · "))
	r.drawn = true
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func (r *liveRenderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clear()
	r.drawn = false
}
