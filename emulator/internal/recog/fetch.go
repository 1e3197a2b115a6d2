package recog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// fetchTimeout is the documented cloud storage limit: a file must download
// within 30 minutes (service time: divided by TimeScale). There is no
// size limit.
const fetchTimeout = 30 * time.Minute

// newFetcher returns the client that downloads URL sources: only from
// loopback addresses, redirects included, each download within
// fetchTimeout of service time.
func newFetcher(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if !isLoopback(req.URL.Hostname()) || len(via) > 5 {
				return errors.New("redirect to a host the emulator does not fetch")
			}
			return nil
		},
	}
}

// fetchSources runs in the background after the start call of a URL job:
// it expands prefixes, downloads and checks every path, then records the
// files (SKIPPED for bad URLs, formats or access).
func (s *service) fetchSources(j *job) {
	defer s.wg.Done()
	s.mu.Lock()
	paths := slices.Clone(j.paths)
	s.mu.Unlock()
	var files []*jobFile
	for _, p := range paths {
		if strings.HasSuffix(p, "/") {
			files = append(files, s.expandPrefix(j, p)...)
			continue
		}
		files = append(files, s.fetchOne(j, p))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.env.Now()
	for _, f := range files {
		f.created = now
		if !j.cancelledAt.IsZero() && f.status == "" {
			f.status, f.completed = fileCancelled, j.cancelledAt
		}
	}
	j.files, j.fetched, j.fetchedAt = files, true, now
}

// fetchOne downloads one URL to a temp file and analyzes it.
func (s *service) fetchOne(j *job, raw string) *jobFile {
	f := &jobFile{id: s.id("file"), path: raw}
	skip := func(msg string) *jobFile {
		f.status, f.errMsg = fileSkipped, msg
		return f
	}
	u, msg := checkSourceURL(raw)
	if msg != "" {
		return skip(msg)
	}
	if ext := strings.ToLower(pathExt(u.Path)); !slices.Contains(jobExtensions, ext) {
		return skip("UNSUPPORTED_FORMAT: " + raw + " is not a supported audio format")
	}
	tmp, err := os.CreateTemp("", "voxform-emu-fetch-*")
	if err != nil {
		return skip("INTERNAL_ERROR: could not store the download")
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if msg := s.get(raw, tmp); msg != "" {
		return skip(msg)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return skip("INTERNAL_ERROR: could not read the download")
	}
	a, err := analyze(s.env, tmp)
	if err != nil {
		return skip("INTERNAL_ERROR: could not read the download")
	}
	if a.Size == 0 || a.Container == "unknown" {
		return skip("UNSUPPORTED_FORMAT: " + raw + " is not readable audio")
	}
	f.a = a
	return f
}

// checkSourceURL accepts https URLs, and http on loopback; other hosts are
// unreachable from the emulator.
func checkSourceURL(raw string) (*url.URL, string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, "INVALID_URL: " + raw + " is not a public https URL"
	}
	if !isLoopback(u.Hostname()) {
		return nil, fmt.Sprintf("ENOTFOUND: could not reach host %s (the emulator fetches loopback addresses only)", u.Hostname())
	}
	return u, "" // https, or http on loopback
}

// get downloads raw into w and returns an error message for the file
// record, or "".
func (s *service) get(raw string, w io.Writer) string {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, raw, nil)
	if err != nil {
		return "INVALID_URL: " + raw
	}
	resp, err := s.fetcher.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return "ECONNREFUSED: could not connect to " + req.URL.Host
		case isTimeout(err):
			return "ETIMEDOUT: " + raw + " did not download within 30 minutes"
		}
		return "REQUEST_ERROR: could not download " + raw + ": " + err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("HTTP_%d: access to %s was refused or it does not exist", resp.StatusCode, raw)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		if isTimeout(err) {
			return "ETIMEDOUT: " + raw + " did not download within 30 minutes"
		}
		return "REQUEST_ERROR: download of " + raw + " failed: " + err.Error()
	}
	return ""
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

var hrefRE = regexp.MustCompile(`(?i)(?:href="([^"]+)"|<Key>([^<]+)</Key>)`)

// expandPrefix lists the audio files under a prefix URL: the emulator reads
// the listing the address serves (an HTML index or an S3-style XML listing)
// and keeps the audio files below the prefix.
func (s *service) expandPrefix(j *job, prefix string) []*jobFile {
	base, msg := checkSourceURL(prefix)
	skipped := func(msg string) []*jobFile {
		return []*jobFile{{id: s.id("file"), path: prefix, status: fileSkipped, errMsg: msg}}
	}
	if msg != "" {
		return skipped(msg)
	}
	var listing strings.Builder
	if msg := s.get(prefix, &limitWriter{w: &listing, n: 4 << 20}); msg != "" {
		return skipped(msg)
	}
	var urls []string
	for _, m := range hrefRE.FindAllStringSubmatch(listing.String(), -1) {
		ref, err := url.Parse(m[1] + m[2])
		if err != nil {
			continue
		}
		abs := base.ResolveReference(ref).String()
		if strings.HasPrefix(abs, prefix) && slices.Contains(jobExtensions, strings.ToLower(pathExt(ref.Path))) && !slices.Contains(urls, abs) {
			urls = append(urls, abs)
		}
	}
	if len(urls) == 0 {
		return skipped("NO_FILES: no audio files found under " + prefix)
	}
	slices.Sort(urls)
	files := make([]*jobFile, 0, len(urls))
	for _, u := range urls {
		files = append(files, s.fetchOne(j, u))
	}
	return files
}

type limitWriter struct {
	w io.Writer
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, errors.New("listing too large")
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}
