package speechapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"sync"
)

// Embedding is a speaker embedding (speech-synthesis.md, "Speaker embedding
// object"): what POST /api/v1/tts/voice-clone/embeddings returns, sent
// unchanged as speaker_embedding for vc-v1. Fields the documents do not
// name are kept in Extra and sent back as they came.
type Embedding struct {
	// Embedding is the encoded embedding.
	Embedding string `json:"embedding"`
	// Shape has two dimensions, the second 768.
	Shape []int `json:"shape"`
	// DType names the tensor's numeric type.
	DType string `json:"dtype"`
	// Extra holds any other fields of the service's object, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
	// Raw is the response body exactly as the service sent it (set by
	// CreateEmbedding), for callers that keep what the service returned.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps unknown fields in Extra.
func (e *Embedding) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	type plain Embedding
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = Embedding(p)
	for _, k := range []string{"embedding", "shape", "dtype"} {
		delete(all, k)
	}
	if len(all) > 0 {
		e.Extra = all
	}
	return nil
}

// MarshalJSON writes the documented fields and Extra.
func (e Embedding) MarshalJSON() ([]byte, error) {
	all := make(map[string]any, len(e.Extra)+3)
	for k, v := range e.Extra {
		all[k] = v
	}
	all["embedding"] = e.Embedding
	all["shape"] = e.Shape
	all["dtype"] = e.DType
	return json.Marshal(all)
}

// CreateEmbedding uploads a reference recording (WAV or MP3, ideally 5 to
// 30 seconds of clear speech) as the multipart file field audio_file and
// returns the speaker embedding. The recording is streamed from r, never
// read whole into memory. When r is an io.Seeker the upload is retried
// like any call, an answer cut mid-body included (an embedding is not
// billed; r is rewound for each attempt); otherwise it is sent once.
func (c *Client) CreateEmbedding(ctx context.Context, filename string, r io.Reader) (*Embedding, error) {
	body := &multipartBody{name: filepath.Base(filename), src: r}
	defer body.close()
	_, seekable := r.(io.Seeker)
	var e *Embedding
	err := c.retry(ctx, c.url(EndpointTTSEmbeddings, ""), func(int) error {
		var err error
		e, err = c.createEmbedding(ctx, body)
		if err != nil && !seekable {
			return final(err)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create embedding: %w", err)
	}
	return e, nil
}

// createEmbedding is one attempt of CreateEmbedding.
func (c *Client) createEmbedding(ctx context.Context, body *multipartBody) (*Embedding, error) {
	hreq, err := c.newRequest(ctx, http.MethodPost, c.url(EndpointTTSEmbeddings, ""), body.reader)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", body.contentType())
	resp, err := c.do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// An embedding is a few kilobytes (768 values): it is read whole, within
	// a bound, to keep its exact bytes.
	raw, err := io.ReadAll(newCappedReader(resp.Body, MaxEmbeddingBytes, "embedding", hostOf(c.cfg.BaseURL)))
	var le *LimitError
	if errors.As(err, &le) {
		return nil, le
	}
	if err != nil {
		return nil, fmt.Errorf("read response: %w", stalled("embedding response", err))
	}
	var e Embedding
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	e.Raw = raw
	if e.Embedding == "" || len(e.Shape) == 0 || e.DType == "" {
		return nil, fmt.Errorf("response lacks embedding, shape or dtype")
	}
	return &e, nil
}

// multipartBody streams a multipart form with one file through a pipe,
// once per attempt.
type multipartBody struct {
	name     string
	src      io.Reader
	boundary string
	mu       sync.Mutex
	pipes    []*io.PipeReader
	wg       sync.WaitGroup
}

func (m *multipartBody) contentType() string {
	if m.boundary == "" {
		m.boundary = multipart.NewWriter(io.Discard).Boundary()
	}
	return "multipart/form-data; boundary=" + m.boundary
}

// reader starts one attempt's body.
func (m *multipartBody) reader() (io.Reader, error) {
	if s, ok := m.src.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("rewind reference audio: %w", err)
		}
	}
	m.contentType()
	pr, pw := io.Pipe()
	m.mu.Lock()
	m.pipes = append(m.pipes, pr)
	m.mu.Unlock()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		mw := multipart.NewWriter(pw)
		_ = mw.SetBoundary(m.boundary)
		part, err := mw.CreateFormFile("audio_file", m.name)
		if err == nil {
			_, err = io.Copy(part, m.src)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}

// close ends every writer goroutine (a request that stopped reading its
// body leaves one blocked) and waits for them.
func (m *multipartBody) close() {
	m.mu.Lock()
	for _, p := range m.pipes {
		p.CloseWithError(io.ErrClosedPipe)
	}
	m.mu.Unlock()
	m.wg.Wait()
}
