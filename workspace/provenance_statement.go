package workspace

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/provenance"
	"github.com/voxform/voxform/state"
)

// attester builds the statements of one Provenance call, hashing each
// input file once.
type attester struct {
	ws      *Workspace
	m       *manifest.Manifest
	st      *state.File
	root    *owned.Root
	secrets map[string]string
	git     provenance.GitHead
	hasGit  bool
	sums    map[string]string              // input digests by name
	synths  map[string]*manifest.Synthesis // by address
	shared  []provenance.Descriptor        // the manifest and data files, the git commit
}

// attest returns the statements of the outputs of the in-sync resource
// addr, whose desired form is d.
func (b *attester) attest(ctx context.Context, addr string, d *planner.Desired) ([]Attestation, error) {
	r := b.st.Resources[addr]
	deps, err := b.dependencies(ctx, d)
	if err != nil {
		return nil, err
	}
	pred, err := b.predicate(addr, r, d, deps)
	if err != nil {
		return nil, err
	}
	out := make([]Attestation, 0, len(r.Outputs))
	for _, o := range r.Outputs {
		subj := provenance.Descriptor{Name: o.Path, Digest: map[string]string{provenance.SHA256: o.SHA256}}
		if o.Format != "" {
			subj.Annotations = map[string]any{"format": o.Format}
		}
		s := &provenance.Statement{Type: provenance.StatementType, Subject: []provenance.Descriptor{subj},
			PredicateType: provenance.PredicateType, Predicate: pred}
		payload, err := provenance.Marshal(s, true)
		if err != nil {
			return nil, fmt.Errorf("provenance %s: %s: %w", addr, o.Path, err)
		}
		if err := checkSecrets(addr, payload, b.secrets); err != nil {
			return nil, err
		}
		out = append(out, Attestation{Address: addr, Output: o.Path, Statement: s, Payload: payload})
	}
	return out, nil
}

// predicate is the SLSA provenance of the resource addr, recorded as r,
// made by the request of d from deps.
func (b *attester) predicate(addr string, r *state.Resource, d *planner.Desired, deps []provenance.Descriptor) (provenance.Provenance, error) {
	req, err := d.RequestJSON()
	if err != nil {
		return provenance.Provenance{}, fmt.Errorf("provenance %s: %w", addr, err)
	}
	ext, err := json.Marshal(struct {
		Address string          `json:"address"`
		Kind    string          `json:"kind"`
		Request json.RawMessage `json:"request"`
	}{addr, r.Kind, req})
	if err != nil {
		return provenance.Provenance{}, fmt.Errorf("provenance %s: %w", addr, err)
	}
	return provenance.Provenance{
		BuildDefinition: provenance.BuildDefinition{
			BuildType:            provenance.BuildType,
			ExternalParameters:   ext,
			InternalParameters:   b.internal(r),
			ResolvedDependencies: deps,
		},
		RunDetails: provenance.RunDetails{
			Builder: provenance.Builder{ID: provenance.BuilderID, Version: map[string]string{"voxform": b.st.VoxformVersion}},
			Metadata: &provenance.Metadata{
				InvocationID: invocationID(r),
				FinishedOn:   provenance.Timestamp(r.UpdatedAt),
			},
		},
	}, nil
}

// invocationID is the service's id of the work: the job, else the first
// request.
func invocationID(r *state.Resource) string {
	if r.Details().JobID != "" {
		return r.Details().JobID
	}
	if len(r.Details().RequestIDs) > 0 {
		return r.Details().RequestIDs[0]
	}
	return ""
}

// internal is what the service said and billed, and the state's lineage:
// the platform's side of the build (internalParameters).
func (b *attester) internal(r *state.Resource) map[string]any {
	p := map[string]any{"state_lineage": b.st.Lineage}
	if prof := string(b.m.Service.Profile); prof != "" {
		p["service_profile"] = prof
	}
	set := func(k string, v any, ok bool) {
		if ok {
			p[k] = v
		}
	}
	set("request_ids", r.Details().RequestIDs, len(r.Details().RequestIDs) > 0)
	set("job_id", r.Details().JobID, r.Details().JobID != "")
	set("job_api", r.Details().JobAPI, r.Details().JobAPI != "")
	set("file_id", r.Details().FileID, r.Details().FileID != "")
	set("model", r.Details().Model, r.Details().Model != "")
	set("detected_language", r.Details().DetectedLanguage, r.Details().DetectedLanguage != "")
	set("duration_seconds", r.Details().DurationSeconds, r.Details().DurationSeconds != 0)
	set("billed_characters", r.BilledCharacters, r.BilledCharacters != 0)
	set("billed_audio_seconds", r.Details().BilledAudioSeconds, r.Details().BilledAudioSeconds != 0)
	set("chunks", len(r.Details().Chunks), len(r.Details().Chunks) > 0)
	set("first_recorded", provenance.Timestamp(r.CreatedAt), !r.CreatedAt.IsZero())
	return p
}

// dependencies are d's inputs (its sources, a synthesis's text_file and
// lexicon), then the manifest's files and the git commit, each file
// hashed now.
func (b *attester) dependencies(ctx context.Context, d *planner.Desired) ([]provenance.Descriptor, error) {
	var dirs []string
	if d.Details().Transcription != nil {
		dirs = d.Details().Transcription.InputDirs
	}
	var out []provenance.Descriptor
	add := func(role, path string) error {
		sum, err := b.sum(ctx, path, dirs)
		if err != nil {
			return fmt.Errorf("provenance %s: %s %w", d.Address, role, err)
		}
		out = append(out, provenance.Descriptor{Name: path, Digest: map[string]string{provenance.SHA256: sum},
			Annotations: map[string]any{"role": role}})
		return nil
	}
	for _, s := range d.Details().Sources {
		if s.URL != "" {
			out = append(out, provenance.Descriptor{URI: s.URL, Annotations: map[string]any{"role": s.Role}})
			continue
		}
		if err := add(s.Role, s.Path); err != nil {
			return nil, err
		}
		if s.SHA256 != "" && s.SHA256 != out[len(out)-1].Digest[provenance.SHA256] {
			return nil, fmt.Errorf("provenance %s: %s %s changed while it was read; run it again", d.Address, s.Role, s.Path)
		}
	}
	if s := b.synthesis(d.Address); s != nil {
		sd := s.Details()
		for _, f := range []struct{ role, path string }{{"text_file", sd.TextFile}, {"lexicon", sd.LexiconFile}} {
			if f.path == "" {
				continue
			}
			if err := add(f.role, f.path); err != nil {
				return nil, err
			}
		}
	}
	shared, err := b.sharedDeps(ctx)
	if err != nil {
		return nil, err
	}
	return append(out, shared...), nil
}

// synthesis is the manifest's synthesis of addr (nil for other kinds).
func (b *attester) synthesis(addr string) *manifest.Synthesis {
	if b.synths == nil {
		b.synths = make(map[string]*manifest.Synthesis, len(b.m.Syntheses))
		for _, s := range b.m.Syntheses {
			b.synths[s.Address] = s
		}
	}
	return b.synths[addr]
}

// sharedDeps are the dependencies of every resource: the manifest files,
// the for_each data files, and the git commit checked out.
func (b *attester) sharedDeps(ctx context.Context) ([]provenance.Descriptor, error) {
	if b.shared != nil {
		return b.shared, nil
	}
	out := []provenance.Descriptor{}
	for _, f := range []struct {
		role  string
		paths []string
	}{{"manifest", b.m.Files}, {"data", b.m.DataFiles}} {
		for _, p := range f.paths {
			sum, err := b.sum(ctx, p, nil)
			if err != nil {
				return nil, fmt.Errorf("provenance: %s %w", f.role, err)
			}
			out = append(out, provenance.Descriptor{Name: p, Digest: map[string]string{provenance.SHA256: sum},
				Annotations: map[string]any{"role": f.role}})
		}
	}
	if b.hasGit {
		ann := map[string]any{"role": "git_commit", "dir": b.git.Dir}
		if b.git.Ref != "" {
			ann["ref"] = b.git.Ref
		}
		out = append(out, provenance.Descriptor{Name: "git", Digest: map[string]string{provenance.GitCommit: b.git.Commit}, Annotations: ann})
	}
	b.shared = out
	return out, nil
}

// sum is the SHA-256 of the input file path, hashed once.
func (b *attester) sum(ctx context.Context, path string, dirs []string) (string, error) {
	if s, ok := b.sums[path]; ok {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s, err := hashInput(b.root, path, dirs)
	if err != nil {
		return "", err
	}
	if b.sums == nil {
		b.sums = map[string]string{}
	}
	b.sums[path] = s
	return s, nil
}
