package speechapi

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/untrusted"
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
// The page's answer is bounded by MaxFilesListingBytes.
func (c *Client) ListJobFiles(ctx context.Context, jobID string, q FilesQuery) (*FilesPage, error) {
	return c.listJobFiles(ctx, jobID, q, &answerLimit{max: MaxFilesListingBytes, what: "files listing"})
}

func (c *Client) listJobFiles(ctx context.Context, jobID string, q FilesQuery, lim *answerLimit) (*FilesPage, error) {
	if q.Limit < 0 || q.Limit > 100 {
		return nil, fmt.Errorf("list files of batch job %s: limit %d is not within 1 to 100", jobID, q.Limit)
	}
	var out FilesPage
	u := c.url(EndpointJobFiles, jobID) + query(q.Status, q.Limit, q.Cursor)
	if _, err := c.callHeaders(ctx, http.MethodGet, u, nil, "", nil, &out, lim); err != nil {
		return nil, fmt.Errorf("list files of batch job %s: %w", jobID, err)
	}
	c.red.records(out.Data) // a record's messages become a FileError's
	return &out, nil
}

// AllJobFiles follows the cursor through every page (100 records a call).
// A job holds at most MaxJobFiles files: a listing with more records,
// more pages than that (empty pages that say there is more), a cursor it
// gave before, or more than MaxFilesListingBytes of answers in all is
// broken or hostile, and stops with a *LimitError naming the host.
func (c *Client) AllJobFiles(ctx context.Context, jobID, status string) ([]FileRecord, error) {
	var all []FileRecord
	lim := &answerLimit{max: MaxFilesListingBytes, what: "files listing"}
	seen := map[string]bool{}
	q := FilesQuery{Status: status, Limit: 100}
	for page := 1; ; page++ {
		p, err := c.listJobFiles(ctx, jobID, q, lim)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Data...)
		if len(all) > MaxJobFiles {
			return nil, c.listingError(jobID, fmt.Sprintf("lists %d files or more", len(all)))
		}
		next := p.Pagination.NextCursor
		if !p.Pagination.HasMore || next == nil || *next == "" {
			return all, nil
		}
		switch {
		case seen[*next] || *next == q.Cursor:
			return nil, c.listingError(jobID, "gives a cursor it gave before")
		case page >= MaxJobFiles:
			return nil, c.listingError(jobID, fmt.Sprintf("has more than %d pages", page))
		}
		seen[*next] = true
		q.Cursor = *next
	}
}

// listingError is a files listing that holds more than a job can.
func (c *Client) listingError(jobID, reason string) error {
	return fmt.Errorf("list files of batch job %s: %w", jobID, &LimitError{What: "files listing", Host: hostOf(c.cfg.BaseURL),
		Limit: fmt.Sprintf("a job holds at most %d files", MaxJobFiles), Reason: reason})
}

// Batch job upload limits (speech-recognition.md, "Limits"); a megabyte
// is 1,000,000 bytes.
const (
	MaxJobFiles         = contract.MaxJobFiles
	MaxJobFileBytes     = contract.MaxJobFileBytes
	MaxZipBytes         = contract.MaxZipBytes
	MaxZipExpandedBytes = contract.MaxZipExpandedBytes
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
// CANCELLED, an older batch result that failed, an upload outside the
// limits, or a call about a file that failed (transcribe, download its
// transcript, create a batch job or submit an older batch with it). It
// names the file; a request carrying several files that failed as a whole
// names them all in Files. The cause, when there is one (a service *Error,
// an *IncompleteError...), stays reachable with errors.As.
type FileError struct {
	JobID string
	Path  string // original path, file name or URL (the first of Files)
	// Files names every file of a request that failed as a whole; nil
	// when the failure is one file's.
	Files   []string
	FileID  string
	Status  string
	Message string
	// Op is the call that failed, e.g. "transcribe"; empty for a file's
	// own final status.
	Op  string
	Err error
}

// Error names the file (or files), what failed, its job and the cause.
func (e *FileError) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op + " ")
	}
	b.WriteString(e.names())
	// Status, job id and message may be the service's words.
	if e.Status != "" {
		b.WriteString(": " + untrusted.Excerpt(strings.ToLower(e.Status)))
	}
	if e.JobID != "" {
		b.WriteString(" in job " + untrusted.Excerpt(e.JobID))
	}
	msg := untrusted.Excerpt(e.Message)
	switch {
	case e.Message != "" && e.Err != nil:
		b.WriteString(": " + msg + ": " + e.Err.Error())
	case e.Message != "":
		b.WriteString(": " + msg)
	case e.Err != nil:
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// names is Path, or the first few of Files and how many more.
// names lists the files for a message; a URL's query and fragment (a
// pre-signed source's signature) are left out.
func (e *FileError) names() string {
	if len(e.Files) < 2 {
		return nameOf(e.Path)
	}
	const shown = 3
	files := make([]string, min(len(e.Files), shown))
	for i := range files {
		files[i] = nameOf(e.Files[i])
	}
	if len(e.Files) <= shown {
		return strings.Join(files[:len(files)-1], ", ") + " and " + files[len(files)-1]
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files, ", "), len(e.Files)-shown)
}

// nameOf is a file name for a message: a URL without its query.
func nameOf(path string) string {
	if strings.Contains(path, "://") {
		return withoutQuery(path)
	}
	return path
}

// filesError wraps the failure of a call about files in a *FileError
// naming them, unless it already is one.
func filesError(op string, names []string, err error) error {
	var fe *FileError
	if err == nil || len(names) == 0 || errors.As(err, &fe) {
		return err
	}
	e := &FileError{Op: op, Err: err}
	if len(names) > 0 {
		e.Path = names[0]
	}
	if len(names) > 1 {
		e.Files = names
	}
	return e
}

// sourceNames returns the names of sources.
func sourceNames(files []Source) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return names
}

// JobError is a job-level failure: a batch job START_FAILED, FAILED or
// CANCELLED, or an older batch job failed as a whole.
type JobError struct {
	JobID  string
	Status string
	Reason string // cancel_reason or the older batch error, when given
	// Legacy marks an older batch job.
	Legacy bool
}

// Error names the job, its status and the reason.
func (e *JobError) Error() string {
	kind := "batch job"
	if e.Legacy {
		kind = "older batch job"
	}
	// Job id, status and reason are the service's words.
	s := fmt.Sprintf("%s %s %s", kind, untrusted.Excerpt(e.JobID), untrusted.Excerpt(strings.ToLower(e.Status)))
	if e.Reason != "" {
		s += ": " + untrusted.Excerpt(e.Reason)
	}
	return s
}
