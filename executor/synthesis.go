package executor

import (
	"context"
	"fmt"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// synthesisOp produces one synthesis output over its transport: one call
// through client, which the client retries (a stream cut mid-body from an
// empty temporary file); a WebSocket session is opened under sessions
// (nil: no limit). The output appears at its path only once complete and
// valid, and is then recorded.
type synthesisOp struct {
	client   *speechapi.Client
	sessions *Limiter
	files    *outputs
	// parallelism bounds the chunks of one chunked synthesis in flight;
	// stops ends one early; chunks is where their audio is kept without
	// an output cache (see applyChunks).
	parallelism int
	stops       stopper
	chunks      chunkStore
	// listen makes the listening checks of syntheses with listen:.
	listen *listener
}

func (op *synthesisOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	if len(a.Desired.Details().Chunks) > 0 {
		return op.applyChunks(ctx, a, sl)
	}
	return op.applyWhole(ctx, a, sl)
}

// commitCues commits the cue files (nil: none) after the audio o, and
// returns all the outputs, the audio first.
func commitCues(o state.Output, cues *cueFiles) ([]state.Output, error) {
	if cues == nil {
		return []state.Output{o}, nil
	}
	more, err := cues.Commit()
	if err != nil {
		return nil, err
	}
	return append([]state.Output{o}, more...), nil
}

func transportName(t string) string {
	if t == "" {
		return manifest.TransportREST
	}
	return t
}

// request is the planned request, as it is; a vc-v1 synthesis adds the
// speaker embedding read from the embedding output (or embedding file)
// now, after its embedding action has run. The plan names that embedding
// by content; nothing else is added or rebuilt.
func (op *synthesisOp) request(a *planner.Action) (*speechapi.SynthesisRequest, error) {
	req := &speechapi.SynthesisRequest{SynthesisRequest: *a.Desired.Wire.Synthesis}
	for _, src := range a.Desired.Details().Sources {
		if src.Role != "embedding" {
			continue
		}
		emb, err := op.files.readEmbeddingInput(src.Path)
		if err != nil {
			return nil, fmt.Errorf("speaker embedding for voice %s: %w", a.Desired.Voice, err)
		}
		req.SpeakerEmbedding = emb
	}
	return req, nil
}
