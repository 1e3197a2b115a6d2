package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// embeddingOp uploads a reference recording through client and writes the
// speaker embedding as JSON, exactly as the service returned it.
type embeddingOp struct {
	client *speechapi.Client
	files  *outputs
}

func (op *embeddingOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	e := a.Desired.Details().Embedding
	f, err := op.files.openInput(e.ReferenceAudio)
	if err != nil {
		return result{}, fmt.Errorf("reference audio: %w", err)
	}
	// The file is an io.Seeker: the client uploads it afresh for each
	// attempt, a response cut mid-body included (an embedding is not
	// billed).
	emb, err := op.client.CreateEmbedding(ctx, e.ReferenceAudio, f)
	f.Close()
	if err != nil {
		return result{}, err
	}
	sl.Release()
	out, err := op.files.output(a, e.Output)
	if err != nil {
		return result{}, err
	}
	defer out.Abort()
	if err := writeRaw(out, emb.Raw, emb); err != nil {
		return result{}, fmt.Errorf("write embedding: %w", err)
	}
	// The output must read back as the embedding a synthesis will send.
	o, err := out.Commit(func(path string) error { _, err := readEmbedding(path); return err })
	if err != nil {
		return result{}, err
	}
	res := &state.Resource{Outputs: []state.Output{o}}
	res.WithDetails(state.Details{Consent: a.Desired.Details().Consent})
	return op.files.record(a, res, 0, 0)
}

// openInput opens a file the manifest names as an input, checked
// (owned.Root.OpenInput): inside the manifest directory unless named
// outside it, and a regular file.
func (w *outputs) openInput(rel string) (*os.File, error) {
	return w.root.OpenInput(filepath.FromSlash(rel))
}

// readEmbeddingInput reads a speaker embedding JSON file the manifest
// names (an embedding's output or a voice's embedding_file) as an input.
func (w *outputs) readEmbeddingInput(rel string) (*speechapi.Embedding, error) {
	f, err := w.openInput(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeEmbedding(rel, f)
}

// readEmbedding reads a speaker embedding JSON file, as a synthesis sends
// it: at most speechapi.MaxEmbeddingBytes.
func readEmbedding(path string) (*speechapi.Embedding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeEmbedding(path, f)
}

// decodeEmbedding reads the embedding JSON of the file at path from r.
func decodeEmbedding(path string, r io.Reader) (*speechapi.Embedding, error) {
	b, err := io.ReadAll(io.LimitReader(r, speechapi.MaxEmbeddingBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > speechapi.MaxEmbeddingBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, the limit for an embedding (MaxEmbeddingBytes)", path, speechapi.MaxEmbeddingBytes>>20)
	}
	var e speechapi.Embedding
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s: not an embedding JSON file: %v", path, err)
	}
	if e.Embedding == "" || len(e.Shape) != 2 {
		return nil, fmt.Errorf("%s: not an embedding: needs embedding and a two-dimensional shape", path)
	}
	return &e, nil
}
