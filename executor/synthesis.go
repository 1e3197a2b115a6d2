package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// synthesize produces one synthesis output over its transport: one call,
// which the client retries (a stream cut mid-body from an empty temporary
// file); the output appears at its path only once complete and valid, and
// is then recorded.
func (x *run) synthesize(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	s := a.Desired.Synthesis
	req, err := x.synthesisRequest(a)
	if err != nil {
		return result{}, err
	}
	// The temporary file is made while the request is on its way.
	out, err := x.openOutput(a, s.Output)
	if err != nil {
		return result{}, err
	}
	defer out.Abort()
	call := x.opts.Client.Synthesize
	switch s.Transport {
	case manifest.TransportSSE:
		call = x.opts.Client.SynthesizeStream
	case manifest.TransportWebSocket:
		call = x.opts.Client.SynthesizeRealtime
	}
	if s.Transport == manifest.TransportWebSocket {
		err = x.session(ctx, func() error { _, err := call(ctx, req, out); return err })
	} else {
		_, err = call(ctx, req, out)
	}
	if err != nil {
		return result{}, fmt.Errorf("synthesize over %s: %w", transportName(s.Transport), err)
	}
	sl.Release() // the audio is here: the next call need not wait for the disk
	format, _ := contract.Resolve(req.AudioConfig)
	o, err := out.Commit(audioValidator(format))
	if err != nil {
		return result{}, err
	}
	return x.recordResource(a, &state.Resource{
		Outputs:          []state.Output{o},
		BilledCharacters: a.Desired.Characters,
	}, a.Desired.Characters, 0)
}

func transportName(t string) string {
	if t == "" {
		return manifest.TransportREST
	}
	return t
}

// synthesisRequest is the planned request, as it is; a vc-v1 synthesis
// adds the speaker embedding read from the embedding output (or embedding
// file) now, after its embedding action has run. The plan names that
// embedding by content; nothing else is added or rebuilt.
func (x *run) synthesisRequest(a *planner.Action) (*speechapi.SynthesisRequest, error) {
	req := &speechapi.SynthesisRequest{SynthesisRequest: *a.Desired.Wire.Synthesis}
	for _, src := range a.Desired.Sources {
		if src.Role != "embedding" {
			continue
		}
		emb, err := readEmbedding(x.abs(src.Path))
		if err != nil {
			return nil, fmt.Errorf("speaker embedding for voice %s: %w", a.Desired.Synthesis.Voice, err)
		}
		req.SpeakerEmbedding = emb
	}
	return req, nil
}

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

// embed uploads a reference recording and writes the speaker embedding as
// JSON, exactly as the service returned it.
func (x *run) embed(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	e := a.Desired.Embedding
	f, err := os.Open(x.abs(e.ReferenceAudio))
	if err != nil {
		return result{}, fmt.Errorf("reference audio: %w", err)
	}
	// The file is an io.Seeker: the client uploads it afresh for each
	// attempt, a response cut mid-body included (an embedding is not
	// billed).
	emb, err := x.opts.Client.CreateEmbedding(ctx, e.ReferenceAudio, f)
	f.Close()
	if err != nil {
		return result{}, err
	}
	sl.Release()
	out, err := x.output(a, e.Output)
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
	return x.recordResource(a, &state.Resource{Outputs: []state.Output{o}, Consent: a.Desired.Consent}, 0, 0)
}

// recordResource fills the common fields, records the resource, and removes
// outputs the resource no longer declares.
func (x *run) recordResource(a *planner.Action, res *state.Resource, chars int64, secs float64) (result, error) {
	res.Kind = string(a.Desired.Kind)
	res.Fingerprint = a.Desired.Fingerprint
	res.Request = a.Desired.Request
	if a.Prior != nil && res.CreatedAt.IsZero() && a.Type == planner.Repair {
		res.CreatedAt = a.Prior.CreatedAt
	}
	if err := x.opts.Recorder.Record(a.Address, res); err != nil {
		return result{}, fmt.Errorf("record %s: %w", a.Address, err)
	}
	if x.opts.Cache != nil {
		for _, o := range res.Outputs {
			x.opts.Cache.Put(o.Path, o.SHA256)
		}
	}
	x.removeStale(a)
	return result{outputs: res.Outputs, chars: chars, seconds: secs, jobID: res.JobID}, nil
}
