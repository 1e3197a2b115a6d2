package speechapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DownloadTranscript streams a completed file's transcript JSON, exactly as
// served, to w. The presigned URL is fetched WITHOUT the API key (its host
// is third-party storage). A transcript larger than MaxTranscriptBytes is
// a *LimitError, found without reading past the limit. When the link has
// expired (or is refused), the job's files are listed again for a fresh
// link and the download is tried once more. Nothing is written to w unless
// a download answered 200. A download that fails as a call may (a
// connection, a 5xx, a body cut short) is sent again like any call, from
// an empty w when w is a Truncater; otherwise what was written must be
// discarded by the caller.
func (c *Client) DownloadTranscript(ctx context.Context, jobID string, rec FileRecord, w io.Writer) (int64, error) {
	if rec.Status != FileCompleted || rec.TranscriptURL == nil || *rec.TranscriptURL == "" {
		return 0, &FileError{JobID: jobID, Path: rec.OriginalPath, FileID: rec.FileID, Status: rec.Status,
			Message: "no transcript to download"}
	}
	link, refreshed := *rec.TranscriptURL, false
	out := output{w: w}
	var n int64
	err := c.retry(ctx, link, func(attempt int) error {
		if err := out.begin(attempt); err != nil {
			return err
		}
		var err error
		n, err = c.getPresigned(ctx, link, w)
		var se *Error
		if !refreshed && errors.As(err, &se) && se.StatusCode >= 400 && se.StatusCode < 500 && se.StatusCode != http.StatusTooManyRequests {
			refreshed = true
			fresh, ferr := c.freshLink(ctx, jobID, rec.FileID)
			if ferr != nil {
				return final(fmt.Errorf("%w; refreshing the link failed: %v", err, ferr))
			}
			link = fresh
			n, err = c.getPresigned(ctx, link, w)
		}
		return out.end(err, n)
	})
	return n, wrapDownload(jobID, rec, err)
}

// wrapDownload names the file of a failed download in a *FileError.
func wrapDownload(jobID string, rec FileRecord, err error) error {
	if err == nil {
		return nil
	}
	return &FileError{Op: "download transcript of", JobID: jobID, Path: rec.OriginalPath, FileID: rec.FileID, Err: err}
}

// freshLink lists the job's completed files again to find fileID's new
// transcript URL.
func (c *Client) freshLink(ctx context.Context, jobID, fileID string) (string, error) {
	recs, err := c.AllJobFiles(ctx, jobID, FileCompleted)
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if r.FileID == fileID && r.TranscriptURL != nil {
			return *r.TranscriptURL, nil
		}
	}
	return "", fmt.Errorf("file %s is no longer listed as completed", fileID)
}

// withoutQuery drops a URL's query and fragment (a presigned URL's
// signature).
func withoutQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?[redacted]"
	}
	return raw
}

// getPresigned GETs a presigned URL with the plain client: no API key, no
// retry of a body already being written.
func (c *Client) getPresigned(ctx context.Context, rawURL string, w io.Writer) (int64, error) {
	if err := checkScheme(rawURL, "https"); err != nil {
		return 0, fmt.Errorf("transcript url: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, fmt.Errorf("transcript url %q is not valid", withoutQuery(rawURL))
	}
	req.Header.Set("User-Agent", "voxform")
	resp, err := c.storage.Do(req)
	if te := timeoutOf(err); te != nil {
		return 0, te
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = withoutQuery(ue.URL) // the signature stays out of errors
		}
		return 0, c.red.scrub(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, c.responseError(resp)
	}
	body := newCappedReader(resp.Body, MaxTranscriptBytes, "transcript download", req.URL.Host)
	if resp.ContentLength > MaxTranscriptBytes {
		return 0, body.err
	}
	n, err := copyBody(w, body)
	var le *LimitError
	if errors.As(err, &le) {
		return n, le
	}
	if te := timeoutOf(err); te != nil {
		return n, &IncompleteError{What: "transcript download", Reason: te.Error(), Err: te}
	}
	if err != nil {
		return n, &IncompleteError{What: "transcript download", Reason: err.Error()}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, &IncompleteError{What: "transcript download", Reason: fmt.Sprintf("%d of %d bytes", n, resp.ContentLength)}
	}
	if n == 0 {
		return 0, &IncompleteError{What: "transcript download", Reason: "empty body"}
	}
	return n, nil
}
