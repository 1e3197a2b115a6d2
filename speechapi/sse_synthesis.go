package speechapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// streamChunk is the data of a chunk or complete event (Events).
type streamChunk struct {
	ChunkIndex *int   `json:"chunk_index"`
	Audio      string `json:"audio"`
	IsFinal    bool   `json:"is_final"`
	// Type and Event name the event when a server sends only data lines.
	Type  string `json:"type"`
	Event string `json:"event"`
	// Status is the completed event's status (quick-start form).
	Status string `json:"status"`
}

// SynthesizeStream calls POST /api/v1/tts/sse and writes the decoded audio
// to w. It accepts both documented event forms (start/chunk/complete and
// audio_chunk/completed), checks chunk order by chunk_index, and turns an
// error event into an *Error even under HTTP 200. A stream that ends
// without its completion event, or with a gap in chunk indexes, is an
// *IncompleteError; it is sent again from an empty w when w is a
// Truncater (counted among the retries), and otherwise what was written
// must be discarded by the caller.
//
// A line longer than MaxSSELineBytes (MaxSSEOggLineBytes for ogg, whose
// one chunk is the whole file) is a *LimitError: the stream is never read
// into memory beyond it.
//
// For wav, each chunk may be a whole WAV file (the live service does so,
// the first possibly header-only); the pieces are joined into one valid
// WAV, which needs w to be an io.WriteSeeker (an *os.File). A plain writer
// works when the stream carries a single header declaring the whole size,
// as the documents describe.
func (c *Client) SynthesizeStream(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	return c.synthesisAttempts(ctx, c.url(EndpointTTSStream, ""), req, w, c.synthesizeStream)
}

// synthesizeStream is one attempt of SynthesizeStream.
func (c *Client) synthesizeStream(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	cfg := resolved(req.AudioConfig)
	sink, err := newStreamSink(cfg, w)
	if err != nil {
		return nil, final(fmt.Errorf("synthesize stream: %w", err))
	}
	resp, err := c.postSynthesis(ctx, EndpointTTSStream, req, "text/event-stream")
	if err != nil {
		return nil, fmt.Errorf("synthesize stream: %w", err)
	}
	defer resp.Body.Close()
	if err := c.checkEventStream(resp); err != nil {
		return nil, fmt.Errorf("synthesize stream: %w", err)
	}
	res := &SynthesisResult{Container: cfg.Container}
	lim := streamLimit{max: MaxSSELineBytes, host: hostOf(c.url(EndpointTTSStream, "")), red: c.red}
	if cfg.Container == ContainerOGG {
		lim.max = MaxSSEOggLineBytes
	}
	err = readSynthesisEvents(resp.Body, sink, res, lim)
	res.Bytes = sink.bytesWritten()
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return res, fmt.Errorf("synthesize stream: %w", c.red.scrub(err))
	}
	return res, nil
}

// checkEventStream accepts text/event-stream; a JSON body is a service error.
func (c *Client) checkEventStream(resp *http.Response) error {
	ct := resp.Header.Get("Content-Type")
	if bytes.HasPrefix([]byte(ct), []byte("text/event-stream")) {
		return nil
	}
	if bytes.HasPrefix([]byte(ct), []byte("application/json")) {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return c.red.serviceError(resp.StatusCode, "", b)
	}
	return fmt.Errorf("response Content-Type \"%s\" is not text/event-stream", c.red.quote(ct))
}

// streamLimit is what readSynthesisEvents needs to know of its stream:
// the longest line, the host (for errors), the key to redact.
type streamLimit struct {
	max  int
	host string
	red  redactor
}

// readSynthesisEvents reads events until the completion event.
func readSynthesisEvents(body io.Reader, sink *streamSink, res *SynthesisResult, lim streamLimit) error {
	const what = "sse stream"
	red := lim.red
	events := newSSEReader(body)
	events.max = lim.max
	var order chunkOrder
	for {
		ev, err := events.Next()
		if err == io.EOF {
			return &IncompleteError{What: what, Reason: fmt.Sprintf("ended after %d chunks without a complete event", res.Chunks)}
		}
		if errors.Is(err, errSSELineTooLong) {
			return &LimitError{What: "sse line", Host: lim.host, Limit: sizeText(int64(lim.max))}
		}
		if err != nil {
			return &IncompleteError{What: what, Reason: err.Error(), Err: timeoutCause(err)}
		}
		name := ev.Name
		if name == "" || name == "message" {
			// Only the names: decoding the audio here too would copy
			// every chunk once more.
			var ch struct{ Type, Event string }
			_ = json.Unmarshal(ev.Data, &ch)
			name = firstNonEmpty(ch.Event, ch.Type)
		}
		switch name {
		case "start":
		case "error":
			return red.streamError(ev.Data)
		case "chunk", "audio_chunk", "audio":
			piece, index, err := chunkAudio(ev.Data)
			if err != nil {
				return fmt.Errorf("chunk %d: %w", res.Chunks+1, err)
			}
			if index != nil {
				if err := order.next(*index, what); err != nil {
					return err
				}
			}
			res.Chunks++
			if err := sink.add(piece); err != nil {
				return err
			}
		case "complete", "completed":
			return finishStream(ev.Data, name, &order, sink, red)
		}
	}
}

// finishStream handles the completion event.
func finishStream(data []byte, name string, order *chunkOrder, sink *streamSink, red redactor) error {
	var ch struct {
		ChunkIndex *int   `json:"chunk_index"`
		Audio      []byte `json:"audio"` // decoded from base64 by encoding/json, without a copy of the text
		Status     string `json:"status"`
	}
	if err := json.Unmarshal(data, &ch); err != nil && len(bytes.TrimSpace(data)) > 0 {
		return fmt.Errorf("%s event: %v", name, err)
	}
	if name == "completed" && ch.Status != "" && ch.Status != "success" {
		return fmt.Errorf("completed event has status \"%s\"", red.quote(ch.Status))
	}
	if ch.ChunkIndex != nil {
		if err := order.final(*ch.ChunkIndex, "sse stream"); err != nil {
			return err
		}
	}
	if len(ch.Audio) > 0 {
		if err := sink.add(ch.Audio); err != nil {
			return err
		}
	}
	return sink.finish()
}

// chunkAudio decodes a chunk's audio: a JSON object with audio and
// chunk_index, or (quick-start form) the bare base64 string, possibly
// JSON-quoted. Only the decoded audio is allocated.
func chunkAudio(data []byte) ([]byte, *int, error) {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		// As []byte, encoding/json decodes the base64 straight into the
		// audio, without a copy of the text first.
		var ch struct {
			Audio      []byte `json:"audio"`
			ChunkIndex *int   `json:"chunk_index"`
		}
		if err := json.Unmarshal(data, &ch); err != nil {
			var ce base64.CorruptInputError
			if errors.As(err, &ce) {
				return nil, nil, fmt.Errorf("chunk audio is not base64: %v", err)
			}
			return nil, nil, fmt.Errorf("chunk data: %v", err)
		}
		return ch.Audio, ch.ChunkIndex, nil
	case len(data) > 0 && data[0] == '"':
		var piece []byte // a JSON string decoded as base64
		if err := json.Unmarshal(data, &piece); err != nil {
			var ce base64.CorruptInputError
			if errors.As(err, &ce) {
				return nil, nil, fmt.Errorf("chunk audio is not base64: %v", err)
			}
			return nil, nil, fmt.Errorf("chunk data: %v", err)
		}
		return piece, nil, nil
	default:
		piece, err := base64.StdEncoding.AppendDecode(nil, data)
		if err != nil {
			return nil, nil, fmt.Errorf("chunk audio is not base64: %v", err)
		}
		return piece, nil, nil
	}
}

// streamError turns an error event's data ({"type", "message"}, SPEC
// section 8a, or any of the documented error shapes) into an *Error whose
// status follows the type, so that Temporary tells whether to retry.
func (r redactor) streamError(data []byte) error {
	e := r.serviceError(0, "", data)
	e.StatusCode = statusOfType(e.Type)
	return e
}

// statusOfType maps a documented error type to its HTTP status.
func statusOfType(t string) int {
	switch t {
	case TypeInvalidRequest:
		return http.StatusBadRequest
	case TypeForbidden:
		return http.StatusForbidden
	case TypeRateLimit:
		return http.StatusTooManyRequests
	case TypeServiceUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
