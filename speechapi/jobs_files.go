package speechapi

import (
	"archive/zip"
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"
)

// FileRecord is one entry of a job's files listing.
type FileRecord struct {
	FileID          string  `json:"file_id"`
	OriginalPath    string  `json:"original_path"`
	Status          string  `json:"status"`
	DurationSeconds *string `json:"duration_seconds"` // a decimal string
	// TranscriptURL is a presigned address, only for COMPLETED files; it
	// expires (1 hour). Download it with DownloadTranscript.
	TranscriptURL *string `json:"transcript_url"`
	ErrorMessage  *string `json:"error_message"`
	CreatedAt     *string `json:"created_at"`
	CompletedAt   *string `json:"completed_at"`
}

// Err returns a *FileError naming the file unless it is COMPLETED.
func (r FileRecord) Err(jobID string) error {
	if r.Status == FileCompleted {
		return nil
	}
	msg := ""
	if r.ErrorMessage != nil {
		msg = *r.ErrorMessage
	}
	return &FileError{JobID: jobID, Path: r.OriginalPath, FileID: r.FileID, Status: r.Status, Message: msg}
}

// FilesQuery selects a page of ListJobFiles.
type FilesQuery struct {
	Status string // FileCompleted etc., or "" for all
	Limit  int    // 1-100 (0: the service default, 50)
	Cursor string
}

// FilesPage is one page of a job's files.
type FilesPage struct {
	JobID      string       `json:"job_id"`
	Data       []FileRecord `json:"data"`
	Pagination Pagination   `json:"pagination"`
}

// ListJobFiles reads one page of GET /stt/v3/batch/jobs/{job_id}/files.
func (c *Client) ListJobFiles(ctx context.Context, jobID string, q FilesQuery) (*FilesPage, error) {
	if q.Limit < 0 || q.Limit > 100 {
		return nil, fmt.Errorf("list files of batch job %s: limit %d is not within 1 to 100", jobID, q.Limit)
	}
	var out FilesPage
	u := c.url(EndpointJobFiles, jobID) + query(q.Status, q.Limit, q.Cursor)
	if err := c.call(ctx, http.MethodGet, u, nil, "", nil, &out); err != nil {
		return nil, fmt.Errorf("list files of batch job %s: %w", jobID, err)
	}
	return &out, nil
}

// AllJobFiles follows the cursor through every page (100 records a call).
func (c *Client) AllJobFiles(ctx context.Context, jobID, status string) ([]FileRecord, error) {
	var all []FileRecord
	q := FilesQuery{Status: status, Limit: 100}
	for {
		p, err := c.ListJobFiles(ctx, jobID, q)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Data...)
		if !p.Pagination.HasMore || p.Pagination.NextCursor == nil || *p.Pagination.NextCursor == "" {
			return all, nil
		}
		if *p.Pagination.NextCursor == q.Cursor {
			return nil, fmt.Errorf("list files of batch job %s: the cursor did not advance", jobID)
		}
		q.Cursor = *p.Pagination.NextCursor
	}
}

// Batch job upload limits (speech-recognition.md, "Limits"); a megabyte
// is 1,000,000 bytes.
const (
	MaxJobFiles         = 100
	MaxJobFileBytes     = 10_000_000
	MaxZipBytes         = 50_000_000
	MaxZipExpandedBytes = 200_000_000
)

// PlanJobs splits uploads into jobs of at most 100 files each, counting the
// audio files inside ZIP archives, and checks the per-file and ZIP limits.
// A ZIP source must be a file (Path set). Create the jobs one by one and
// record each id as its create returns.
func PlanJobs(files []Source) ([][]Source, error) {
	var plan [][]Source
	var cur []Source
	count := 0
	for _, f := range files {
		n, err := uploadCount(f)
		if err != nil {
			return nil, err
		}
		if count+n > MaxJobFiles {
			plan = append(plan, cur)
			cur, count = nil, 0
		}
		cur = append(cur, f)
		count += n
	}
	if len(cur) > 0 {
		plan = append(plan, cur)
	}
	return plan, nil
}

// uploadCount checks one upload and returns how many job files it makes.
func uploadCount(f Source) (int, error) {
	if !strings.EqualFold(path.Ext(f.Name), ".zip") {
		if f.Size > MaxJobFileBytes {
			return 0, &FileError{Path: f.Name, Message: fmt.Sprintf("%d bytes: larger than the 10 MB batch upload limit", f.Size)}
		}
		return 1, nil
	}
	if f.Path == "" {
		return 0, &FileError{Path: f.Name, Message: "a ZIP archive must be a file so that its contents can be counted"}
	}
	if f.Size > MaxZipBytes {
		return 0, &FileError{Path: f.Name, Message: fmt.Sprintf("%d bytes: larger than the 50 MB ZIP limit", f.Size)}
	}
	zr, err := zip.OpenReader(f.Path)
	if err != nil {
		return 0, &FileError{Path: f.Name, Message: "not a readable ZIP archive: " + err.Error()}
	}
	defer zr.Close()
	n := 0
	var expanded uint64
	for _, e := range zr.File {
		expanded += e.UncompressedSize64
		base := path.Base(e.Name)
		if e.FileInfo().IsDir() || strings.HasPrefix(e.Name, "__MACOSX/") || strings.HasPrefix(base, ".") {
			continue
		}
		if e.UncompressedSize64 > MaxJobFileBytes {
			return 0, &FileError{Path: f.Name + "/" + e.Name, Message: "larger than the 10 MB batch file limit"}
		}
		n++
	}
	switch {
	case expanded > MaxZipExpandedBytes:
		return 0, &FileError{Path: f.Name, Message: "expands to more than the 200 MB ZIP limit"}
	case n > MaxJobFiles:
		return 0, &FileError{Path: f.Name, Message: fmt.Sprintf("holds %d files: more than the %d files of one job", n, MaxJobFiles)}
	}
	return n, nil
}

// FileError is a file-level failure: a batch file FAILED, SKIPPED or
// CANCELLED, an older batch result that failed, or an upload outside the
// limits. It names the file.
type FileError struct {
	JobID   string
	Path    string // original path, file name or URL
	FileID  string
	Status  string
	Message string
}

// Error names the file, its status, its job and the service's message.
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Status != "" {
		b.WriteString(": " + strings.ToLower(e.Status))
	}
	if e.JobID != "" {
		b.WriteString(" in job " + e.JobID)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// JobError is a job-level failure: START_FAILED, FAILED or CANCELLED.
type JobError struct {
	JobID  string
	Status string
	Reason string // cancel_reason, when given
}

// Error names the job, its status and the cancel reason.
func (e *JobError) Error() string {
	s := fmt.Sprintf("batch job %s %s", e.JobID, strings.ToLower(e.Status))
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}
