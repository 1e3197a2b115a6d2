package speechapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/untrusted"
)

// SynthesisRequest is the JSON body of every synthesis transport
// (speech-synthesis.md, "Synthesis request"): the planned request
// (contract.SynthesisRequest, sent as it is) and, for vc-v1, the speaker
// embedding read when the synthesis runs.
type SynthesisRequest struct {
	contract.SynthesisRequest
	// SpeakerEmbedding is required for vc-v1: the object CreateEmbedding
	// returned, passed unchanged.
	SpeakerEmbedding *Embedding `json:"speaker_embedding,omitempty"`
}

// AudioConfig is the output format of a synthesis ("audio_config").
type AudioConfig = contract.AudioConfig

// Containers of the audio format reference.
const (
	ContainerWAV   = contract.WAV
	ContainerRaw   = contract.Raw
	ContainerMP3   = contract.MP3
	ContainerOGG   = contract.Ogg
	ContainerMuLaw = contract.MuLaw
	ContainerALaw  = contract.ALaw
)

// resolved is the format the service produces for c (contract.Resolve).
func resolved(c *AudioConfig) contract.Format {
	f, _ := contract.Resolve(c)
	return f
}

// contentTypes are the documented Content-Types per container, with the
// spellings servers commonly use for the same thing.
var contentTypes = map[string][]string{
	ContainerWAV:   {"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"},
	ContainerRaw:   {"application/octet-stream", "audio/l16", "audio/pcm"},
	ContainerMP3:   {"audio/mpeg", "audio/mp3"},
	ContainerOGG:   {"audio/ogg", "audio/opus", "application/ogg"},
	ContainerMuLaw: {"audio/basic", "audio/mulaw", "audio/x-mulaw", "audio/pcmu"},
	ContainerALaw:  {"audio/alaw", "audio/x-alaw-basic", "audio/pcma"},
}

// SynthesisResult describes audio a synthesis call wrote.
type SynthesisResult struct {
	// Container is the resolved container of the audio written.
	Container string
	// Bytes is the number of bytes written to the caller's writer.
	Bytes int64
	// ContentType is the response's Content-Type (REST only).
	ContentType string
	// Chunks is the number of audio chunks or frames received (streams).
	Chunks int
}

// Synthesize calls POST /api/v1/tts/inference and streams the audio to w.
// It checks the Content-Type against the requested container, the
// container's magic bytes, and that the whole body arrived (Content-Length,
// and for WAV the header's data size): a short body is an
// *IncompleteError. A body cut mid-way is sent again from an empty w when
// w is a Truncater (an *os.File: see Rewind), counted among the retries;
// otherwise what was written must be discarded by the caller.
func (c *Client) Synthesize(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	return c.synthesisAttempts(ctx, c.url(EndpointTTSInference, ""), req, w, c.synthesize)
}

// synthesize is one attempt of Synthesize.
func (c *Client) synthesize(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	resp, err := c.postSynthesis(ctx, EndpointTTSInference, req, "*/*")
	if err != nil {
		return nil, fmt.Errorf("synthesize: %w", err)
	}
	defer resp.Body.Close()
	cfg := resolved(req.AudioConfig)
	res := &SynthesisResult{Container: cfg.Container, ContentType: resp.Header.Get("Content-Type")}
	if err := checkContentType(res.ContentType, cfg.Container, resp.Body, c.red); err != nil {
		return nil, fmt.Errorf("synthesize: %w", err)
	}
	v := newBodyValidator(cfg, w)
	n, err := copyBody(v, resp.Body)
	res.Bytes = n
	if v.werr != nil {
		return res, final(fmt.Errorf("synthesize: write audio: %w", v.werr))
	}
	if err != nil && ctx.Err() != nil {
		return res, fmt.Errorf("synthesize: %w", ctx.Err())
	}
	if err != nil {
		return res, fmt.Errorf("synthesize: %w", &IncompleteError{What: "synthesis response", Reason: fmt.Sprintf("body ended after %d bytes: %v", n, c.red.scrub(err)), Err: timeoutCause(err)})
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return res, fmt.Errorf("synthesize: %w", &IncompleteError{What: "synthesis response", Reason: fmt.Sprintf("got %d of %d bytes", n, resp.ContentLength)})
	}
	if err := v.finish(); err != nil {
		return res, fmt.Errorf("synthesize: %w", err)
	}
	return res, nil
}

// bytesOf is what an attempt wrote to the caller's writer.
func bytesOf(res *SynthesisResult) int64 {
	if res == nil {
		return 0
	}
	return res.Bytes
}

// postSynthesis sends the request body to an HTTP synthesis endpoint. A
// service error whose body does not say "success": false says so
// (restShape).
func (c *Client) postSynthesis(ctx context.Context, endpoint string, req *SynthesisRequest, accept string) (*http.Response, error) {
	if req == nil {
		return nil, fmt.Errorf("no synthesis request")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	hreq, err := c.newRequest(ctx, http.MethodPost, c.url(endpoint, ""), body)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", accept)
	resp, err := c.do(hreq)
	return resp, restShape(err)
}

// checkContentType accepts the documented Content-Type of container. A
// JSON body under 200 is read as a service error.
func checkContentType(ct, container string, body io.Reader, red redactor) error {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(ct))
	}
	for _, want := range contentTypes[container] {
		if mt == want {
			return nil
		}
	}
	if mt == "application/json" {
		b, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
		return restShape(red.serviceError(http.StatusOK, "", b))
	}
	return fmt.Errorf("response Content-Type \"%s\" does not match container %s (want %s)", red.quote(ct), container, contentTypes[container][0])
}

// bodyValidator passes audio through to the caller's writer while checking
// the container's magic bytes and, for WAV, the declared data size.
type bodyValidator struct {
	cfg  contract.Format
	w    io.Writer
	head []byte
	n    int64
	werr error
}

func newBodyValidator(cfg contract.Format, w io.Writer) *bodyValidator {
	return &bodyValidator{cfg: cfg, w: w}
}

func (v *bodyValidator) Write(p []byte) (int, error) {
	if len(v.head) < 64 {
		v.head = append(v.head, p[:min(len(p), 64-len(v.head))]...)
	}
	n, err := v.w.Write(p)
	v.n += int64(n)
	if err != nil {
		v.werr = err
	}
	return n, err
}

// finish checks the whole body.
func (v *bodyValidator) finish() error {
	if v.n == 0 {
		return &IncompleteError{What: "synthesis response", Reason: "empty audio body"}
	}
	if err := checkMagic(v.cfg.Container, v.head); err != nil {
		return err
	}
	switch v.cfg.Container {
	case ContainerWAV:
		return checkWAVSize(v.head, v.n)
	case ContainerRaw, ContainerMuLaw, ContainerALaw:
		if fb := int64(v.cfg.FrameBytes()); fb > 0 && v.n%fb != 0 {
			return &IncompleteError{What: "synthesis response", Reason: fmt.Sprintf("%d bytes is not a whole number of %d-byte frames", v.n, fb)}
		}
	}
	return nil
}

// checkMagic verifies the first bytes of a container.
func checkMagic(container string, head []byte) error {
	ok := true
	switch container {
	case ContainerWAV:
		ok = len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE"
	case ContainerMP3:
		ok = bytes.HasPrefix(head, []byte("ID3")) || (len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0)
	case ContainerOGG:
		ok = bytes.HasPrefix(head, []byte("OggS"))
	}
	if !ok {
		return fmt.Errorf("response is not %s audio (starts with \"%s\")", container, untrusted.Escape(string(head[:min(len(head), 8)])))
	}
	return nil
}

// synthesisAttempts makes the attempts of one synthesis through the one
// retry layer: each attempt (one, to target) writes to w from its start,
// rewinding what an attempt cut short wrote.
func (c *Client) synthesisAttempts(ctx context.Context, target string, req *SynthesisRequest, w io.Writer,
	attempt func(context.Context, *SynthesisRequest, io.Writer) (*SynthesisResult, error)) (*SynthesisResult, error) {
	out := output{w: w}
	var res *SynthesisResult
	err := c.retry(ctx, target, func(n int) error {
		if err := out.begin(n); err != nil {
			return err
		}
		var err error
		res, err = attempt(ctx, req, w)
		return out.end(err, bytesOf(res))
	})
	return res, err
}
