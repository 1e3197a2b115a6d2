package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

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
	e := a.Desired.Embedding
	f, err := os.Open(op.files.abs(e.ReferenceAudio))
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
	return op.files.record(a, &state.Resource{Outputs: []state.Output{o}, Consent: a.Desired.Consent}, 0, 0)
}

// readEmbedding reads a speaker embedding JSON file, as a synthesis sends it.
func readEmbedding(path string) (*speechapi.Embedding, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
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
