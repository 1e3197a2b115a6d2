package recog

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// lookup finds the job of a request's {job_id} and brings it up to date.
// The caller must unlock s.mu when ok. A literal placeholder is 422, an
// unknown id 404 JOB_NOT_FOUND.
func (s *service) lookup(w http.ResponseWriter, r *http.Request) (*job, bool) {
	id := r.PathValue("job_id")
	if isPlaceholder(id) {
		emu.WriteBatchError(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR",
			fmt.Sprintf("job_id %q is a placeholder, not a job id", id))
		return nil, false
	}
	s.mu.Lock()
	j, ok := s.jobs[id]
	if !ok {
		s.mu.Unlock()
		emu.WriteBatchError(w, http.StatusNotFound, "JOB_NOT_FOUND", fmt.Sprintf("job %s was not found", id))
		return nil, false
	}
	s.advance(j, s.env.Now())
	return j, true
}

func isPlaceholder(id string) bool {
	id = strings.TrimSpace(id)
	return id == "" || strings.ContainsAny(id, "{}<>") || strings.HasPrefix(id, ":") ||
		strings.EqualFold(id, "job_id") || strings.EqualFold(id, "jobId")
}

// startJob serves POST /stt/v3/batch/jobs/{job_id}/start.
func (s *service) startJob(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	defer s.mu.Unlock()
	if j.status != stCreated {
		emu.WriteBatchError(w, http.StatusConflict, "JOB_ALREADY_STARTED",
			fmt.Sprintf("job %s cannot be started: it is %s", j.id, j.status))
		return
	}
	now := s.env.Now()
	j.status, j.started, j.updated = stStarting, now, now
	s.env.Stats.Inc(emu.BatchJobsStarted)
	if j.urlJob {
		s.wg.Add(1)
		go s.fetchSources(j)
	}
	emu.WriteJSON(w, http.StatusAccepted, map[string]any{"job_id": j.id, "status": stStarting,
		"message": "job is starting; poll GET /stt/v3/batch/jobs/" + j.id + " for its status"})
}

// jobStatus serves GET /stt/v3/batch/jobs/{job_id}.
func (s *service) jobStatus(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	now := s.env.Now()
	body := s.statusBody(j, now)
	s.env.Stats.JobPolled(j.id, now, pollGuidanceOf(j), terminal(j.status))
	s.mu.Unlock()
	emu.WriteJSON(w, http.StatusOK, body)
}

// cancelJob serves POST /stt/v3/batch/jobs/{job_id}/cancel.
func (s *service) cancelJob(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<10)).Decode(&body); err != nil && err.Error() != "EOF" {
			emu.WriteBatchError(w, http.StatusBadRequest, codeInvalid, "the body is not valid JSON: "+err.Error())
			return
		}
	}
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	defer s.mu.Unlock()
	switch {
	case j.status == stCancelled || j.status == stCancelling:
		emu.WriteBatchError(w, http.StatusConflict, "JOB_CANCELLED", fmt.Sprintf("job %s is already cancelled", j.id))
		return
	case terminal(j.status):
		emu.WriteBatchError(w, http.StatusConflict, "JOB_NOT_CANCELLABLE",
			fmt.Sprintf("job %s cannot be cancelled: it is %s", j.id, j.status))
		return
	}
	now := s.env.Now()
	reason := body.Reason
	if reason == "" {
		reason = "cancelled by the user"
	}
	j.cancelReason, j.cancelledAt, j.updated = &reason, now, now
	for _, f := range j.files {
		if f.status == "" {
			f.status, f.completed = fileCancelled, now
		}
	}
	s.env.Stats.Inc(emu.BatchJobsCancelled)
	s.env.Stats.JobCancelled(j.id)
	if j.status == stCreated {
		s.finish(j, stCancelled, now)
	} else {
		j.status = stCancelling
	}
	emu.WriteJSON(w, http.StatusOK, map[string]any{"job_id": j.id, "status": j.status,
		"message": "job cancellation accepted", "cancelled_at": stamp(now)})
}

// page reads limit (1-100, default 50) and cursor query parameters.
func page(w http.ResponseWriter, r *http.Request, total int) (from, to int, ok bool) {
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			emu.WriteBatchError(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "limit must be an integer from 1 to 100")
			return 0, 0, false
		}
		limit = n
	}
	if c := q.Get("cursor"); c != "" {
		n, err := decodeCursor(c)
		if err != nil || n < 0 || n > total {
			emu.WriteBatchError(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "cursor is not valid")
			return 0, 0, false
		}
		from = n
	}
	return from, min(total, from+limit), true
}

func encodeCursor(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(n)))
}

func decodeCursor(c string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "offset:") {
		return 0, fmt.Errorf("bad cursor")
	}
	return strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
}

func pagination(to, total int) map[string]any {
	p := map[string]any{"has_more": to < total, "next_cursor": nil, "total_count": total}
	if to < total {
		p["next_cursor"] = encodeCursor(to)
	}
	return p
}

// jobFiles serves GET /stt/v3/batch/jobs/{job_id}/files. Only files with a
// final status are listed; each listing mints fresh transcript URLs.
func (s *service) jobFiles(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if status != "" && !slices.Contains([]string{fileCompleted, fileFailed, fileSkipped, fileCancelled}, status) {
		emu.WriteBatchError(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR",
			"status must be one of COMPLETED, FAILED, SKIPPED, CANCELLED")
		return
	}
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	defer s.mu.Unlock()
	var sel []*jobFile
	for _, f := range j.files {
		if f.status != "" && (status == "" || f.status == status) {
			sel = append(sel, f)
		}
	}
	from, to, ok := page(w, r, len(sel))
	if !ok {
		return
	}
	data := make([]fileRecordBody, 0, to-from)
	for _, f := range sel[from:to] {
		url := ""
		if f.status == fileCompleted {
			url = s.presign(r, j.id, f.id)
		}
		data = append(data, fileRecord(f, url))
	}
	emu.WriteJSON(w, http.StatusOK, map[string]any{"job_id": j.id, "data": data, "pagination": pagination(to, len(sel))})
}

// listJobs serves GET /stt/v3/batch/jobs: newest first, with limit, cursor
// and status (SPEC section 8a).
func (s *service) listJobs(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.env.Now()
	var sel []*job
	for i := len(s.order) - 1; i >= 0; i-- {
		j := s.order[i]
		s.advance(j, now)
		if status == "" || j.status == status {
			sel = append(sel, j)
		}
	}
	from, to, ok := page(w, r, len(sel))
	if !ok {
		return
	}
	data := make([]jobStatusBody, 0, to-from)
	for _, j := range sel[from:to] {
		data = append(data, s.statusBody(j, now))
	}
	emu.WriteJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": pagination(to, len(sel))})
}
