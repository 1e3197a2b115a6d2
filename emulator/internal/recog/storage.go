package recog

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// storagePrefix is where presigned transcript URLs point: emulated
// third-party storage, not an API route (no key, no latency, no injected
// errors; drop-rate applies). Downloads count among the requests as
// GET /_storage/transcripts/{token}, and as presigned_downloads.
const storagePrefix = "/_storage/transcripts/"

// link is one presigned transcript URL.
type link struct {
	jobID, fileID string
	expires       time.Time
}

// presign mints a fresh transcript URL valid for TranscriptURLTTL. The
// caller holds s.mu.
func (s *service) presign(r *http.Request, jobID, fileID string) string {
	token := fmt.Sprintf("%016x%016x", s.env.Uint64(), s.env.Uint64())
	exp := s.env.Now().Add(s.env.Opts.TranscriptURLTTL)
	s.links[token] = link{jobID: jobID, fileID: fileID, expires: exp}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s%s%s?X-Expires=%d", scheme, r.Host, storagePrefix, token, exp.Unix())
}

// download serves a presigned transcript URL, as object storage would: 403
// AccessDenied once expired, 404 NoSuchKey for an unknown token.
func (s *service) download(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-API-Key-ID") != "" {
		s.env.Stats.Inc(emu.PresignedDownloadsWithAPIKey)
	}
	s.mu.Lock()
	l, ok := s.links[r.PathValue("token")]
	var (
		doc transcriptBody
		now = s.env.Now()
	)
	if ok && now.Before(l.expires) {
		j := s.jobs[l.jobID]
		for _, f := range j.files {
			if f.id == l.fileID {
				doc = j.transcript(f)
			}
		}
	}
	s.mu.Unlock()
	switch {
	case !ok:
		storageError(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	case !now.Before(l.expires):
		storageError(w, http.StatusForbidden, "AccessDenied", "Request has expired")
		return
	}
	s.env.Stats.Inc(emu.PresignedDownloads)
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc)
}

func storageError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message></Error>\n", code, msg)
}

// isLoopback reports whether host is localhost or a loopback IP.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
