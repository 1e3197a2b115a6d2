package executor

import (
	"context"
	"fmt"

	"github.com/voxform/voxform/contract"
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
}

func (op *synthesisOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	if len(a.Desired.Chunks) > 0 {
		return op.applyChunks(ctx, a, sl)
	}
	if err := checkPriced(a, a.Desired.Characters, "the whole text"); err != nil {
		return result{}, err
	}
	req, err := op.request(a)
	if err != nil {
		return result{}, err
	}
	// The temporary file is made while the request is on its way.
	out, err := op.files.openOutput(a, a.Desired.Outputs[0].Path)
	if err != nil {
		return result{}, err
	}
	defer out.Abort()
	format, _ := contract.Resolve(req.AudioConfig)
	out.measure(ctx, format)
	if err := op.send(ctx, a.Desired.Transport, req, out); err != nil {
		return result{}, err
	}
	sl.Release() // the audio is here: the next call need not wait for the disk
	var cues *cueFiles
	if hasCues(a) {
		if err := out.CheckWith(audioCheck(format)); err != nil {
			return result{}, err
		}
		list, err := wholeCue(a, out.TempPath(), format)
		if err != nil {
			return result{}, err
		}
		if cues, err = op.files.writeCues(a, list); err != nil {
			return result{}, err
		}
		defer cues.Abort()
	}
	o, err := out.CommitWith(audioCheck(format))
	if err != nil {
		return result{}, err
	}
	outs, err := commitCues(o, cues)
	if err != nil {
		return result{}, err
	}
	return op.files.record(a, &state.Resource{
		Outputs:          outs,
		BilledCharacters: a.Desired.Characters,
	}, a.Desired.Characters, 0)
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
	for _, src := range a.Desired.Sources {
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
