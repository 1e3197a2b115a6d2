package speechapi

import (
	"net/url"
	"strings"

	"github.com/voxform/voxform/contract"
)

// Endpoint names, used as keys of Config.Paths to override a path when the
// live service differs from its documents (SPEC section 7).
const (
	EndpointTTSInference  = "tts_inference"
	EndpointTTSStream     = "tts_sse"
	EndpointTTSRealtime   = "tts_realtime"
	EndpointTTSEmbeddings = "tts_embeddings"
	EndpointSTT           = "stt"
	EndpointSTTRealtime   = "stt_realtime"
	EndpointBatchSubmit   = "stt_batch_submit"
	EndpointBatchStatus   = "stt_batch_status"
	EndpointJobs          = "stt_jobs"
	EndpointJob           = "stt_job"
	EndpointJobStart      = "stt_job_start"
	EndpointJobFiles      = "stt_job_files"
	EndpointJobCancel     = "stt_job_cancel"
)

// DefaultPaths are the documented paths. {job_id} is replaced by the
// path-escaped job id.
var DefaultPaths = map[string]string{
	EndpointTTSInference:  "/api/v1/tts/inference",
	EndpointTTSStream:     "/api/v1/tts/sse",
	EndpointTTSRealtime:   "/api/v1/tts",
	EndpointTTSEmbeddings: "/api/v1/tts/voice-clone/embeddings",
	EndpointSTT:           "/stt/v3",
	EndpointSTTRealtime:   "/stt/v3",
	EndpointBatchSubmit:   "/stt/v3/batch/submit",
	EndpointBatchStatus:   "/stt/v3/batch/status/{job_id}",
	EndpointJobs:          "/stt/v3/batch/jobs",
	EndpointJob:           "/stt/v3/batch/jobs/{job_id}",
	EndpointJobStart:      "/stt/v3/batch/jobs/{job_id}/start",
	EndpointJobFiles:      "/stt/v3/batch/jobs/{job_id}/files",
	EndpointJobCancel:     "/stt/v3/batch/jobs/{job_id}/cancel",
}

// LivePaths are the live service's paths where they differ from the
// documented ones (contract.ProfileLive).
var LivePaths = map[string]string{
	EndpointSTTRealtime: "/stt/v3/stream",
}

// path returns the path of an endpoint, with {job_id} filled in:
// Config.Paths, else the profile's path.
func (c *Client) path(endpoint, jobID string) string {
	p, ok := c.cfg.Paths[endpoint]
	if !ok && c.cfg.Profile == contract.ProfileLive {
		p, ok = LivePaths[endpoint]
	}
	if !ok {
		p = DefaultPaths[endpoint]
	}
	if jobID != "" {
		p = strings.ReplaceAll(p, "{job_id}", url.PathEscape(jobID))
	}
	return p
}

// url returns the absolute HTTP URL of an endpoint.
func (c *Client) url(endpoint, jobID string) string {
	return strings.TrimRight(c.cfg.BaseURL, "/") + c.path(endpoint, jobID)
}

// wsURL returns the absolute WebSocket URL of an endpoint.
func (c *Client) wsURL(endpoint string) string {
	return strings.TrimRight(c.cfg.WSBaseURL, "/") + c.path(endpoint, "")
}
