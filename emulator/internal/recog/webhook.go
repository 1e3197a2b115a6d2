package recog

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// webhookClient never follows a redirect: it could lead off loopback.
var webhookClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// webhook is a payload due to a callback address.
type webhook struct {
	url  string
	body []byte
}

type webhookBody struct {
	Event          string           `json:"event"`
	JobID          string           `json:"job_id"`
	OrgID          string           `json:"org_id"`
	UserID         string           `json:"user_id"`
	Status         string           `json:"status"`
	TotalFiles     int              `json:"total_files"`
	CompletedFiles int              `json:"completed_files"`
	FailedFiles    int              `json:"failed_files"`
	CancelledFiles int              `json:"cancelled_files"`
	CompletedAt    *string          `json:"completed_at"`
	CallbackURL    string           `json:"callback_url"`
	Transcripts    []transcriptBody `json:"transcripts"`
}

var events = map[string]string{
	stCompleted: "job.completed", stPartialFailure: "job.partial_failure",
	stFailed: "job.failed", stStartFailed: "job.failed", stCancelled: "job.cancelled",
}

// webhookFor builds the payload of j's terminal transition. The caller
// holds s.mu.
func (s *service) webhookFor(j *job) webhook {
	b := webhookBody{Event: events[j.status], JobID: j.id, OrgID: "org_emulator", UserID: "user_emulator",
		Status: j.status, TotalFiles: len(j.files), CallbackURL: j.callback, Transcripts: []transcriptBody{}}
	for _, f := range j.files {
		switch f.status {
		case fileCompleted:
			b.CompletedFiles++
			if j.status == stCompleted || j.status == stPartialFailure {
				b.Transcripts = append(b.Transcripts, j.transcript(f))
			}
		case fileFailed, fileSkipped:
			b.FailedFiles++
		case fileCancelled:
			b.CancelledFiles++
		}
	}
	if j.status != stCancelled {
		b.CompletedAt = stamp(j.ended)
	}
	data, _ := json.Marshal(b)
	return webhook{url: j.callback, body: data}
}

// send POSTs a webhook once, without retries or signature, and only to a
// loopback address: the emulator never reaches out to other hosts. A
// webhook to any other host is dropped and not counted.
func (s *service) send(h webhook) {
	u, err := url.Parse(h.url)
	if err != nil || !isLoopback(u.Hostname()) {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(h.body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	s.env.Stats.Inc(emu.WebhooksSent) // counted when posted, delivered or not
	resp, err := webhookClient.Do(req)
	if err != nil {
		return
	}
	resp.Body.Close()
}
