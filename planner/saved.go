package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// Saved plan file format (plan -out FILE).
const (
	savedFormat  = "voxform-plan"
	savedVersion = 1
)

// SavedPlan is a plan file: the plan bound to the state it was computed from
// (lineage and serial) and to the manifest (its hash and variables). It
// holds the canonical requests, text included; never the API key.
type SavedPlan struct {
	Format         string `json:"format"`
	Version        int    `json:"version"`
	VoxformVersion string `json:"voxform_version"`
	// ManifestHash is manifest.Manifest.Hash when the plan was made.
	ManifestHash string `json:"manifest_hash"`
	// Variables are the manifest's effective variables.
	Variables map[string]any `json:"variables,omitempty"`
	// Vars and VarFiles are the -var and -var-file flags, so that apply
	// and show load the manifest the same way.
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
	// Emulate records that the plan was made with -emulate: applying it
	// runs against the built-in emulator, never the speech service.
	Emulate bool  `json:"emulate,omitempty"`
	Plan    *Plan `json:"plan"`
}

// NewSaved binds p to the manifest it was computed from.
func NewSaved(p *Plan, m *manifest.Manifest, vars, varFiles []string) *SavedPlan {
	return &SavedPlan{
		Format: savedFormat, Version: savedVersion, VoxformVersion: state.VoxformVersion,
		ManifestHash: m.Hash, Variables: m.Variables, Vars: vars, VarFiles: varFiles, Plan: p,
	}
}

// Write encodes the saved plan as JSON.
func (s *SavedPlan) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("write plan file: %w", err)
	}
	return nil
}

// ErrStalePlan is wrapped by the error of a plan file that no longer matches
// the state or the manifest.
var ErrStalePlan = errors.New("the saved plan is stale")

// MaxPlanFileBytes bounds a plan file: a plan of 100,000 syntheses with
// their texts is well under it.
const MaxPlanFileBytes = 1 << 30

// ReadSaved decodes a plan file, refusing anything that is not a voxform plan
// of a version this voxform knows, or larger than MaxPlanFileBytes.
func ReadSaved(r io.Reader) (*SavedPlan, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPlanFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	if len(data) > MaxPlanFileBytes {
		return nil, fmt.Errorf("read plan file: larger than %d bytes, the limit of a plan file", MaxPlanFileBytes)
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != savedFormat {
		return nil, errors.New("read plan file: not a voxform plan file")
	}
	if head.Version != savedVersion {
		return nil, fmt.Errorf("read plan file: format version %d is not supported (this voxform reads %d)", head.Version, savedVersion)
	}
	var s SavedPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	if s.Plan == nil {
		return nil, errors.New("read plan file: no plan in it")
	}
	if err := s.Plan.checkSaved(); err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	s.Plan.index()
	return &s, nil
}

// checkSaved refuses a decoded plan that names a path voxform does not own
// or file operations that do not follow from its records, before anything
// runs.
func (p *Plan) checkSaved() error {
	for _, a := range p.Actions {
		if a == nil {
			return errors.New("an action is null")
		}
		if err := a.checkShape(); err != nil {
			return err
		}
		if err := a.checkConsistent(); err != nil {
			return err
		}
	}
	return p.CheckPaths(nil)
}

// sameWire reports whether two wire requests say the same (as a plan file
// holds them).
func sameWire(a, b Wire) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// checkShape refuses an action without what its type needs.
func (a *Action) checkShape() error {
	needDesired, needPrior := true, true
	switch a.Type {
	case Create:
		needPrior = false
	case Delete:
		needDesired = false
	case Replace, Repair, Move, Resume:
	default:
		return fmt.Errorf("%s: unknown action %q", a.Address, a.Type)
	}
	if needDesired && a.Desired == nil {
		return fmt.Errorf("%s: a %s without the desired resource", a.Address, a.Type)
	}
	if needPrior && a.Prior == nil {
		return fmt.Errorf("%s: a %s without the recorded resource", a.Address, a.Type)
	}
	return nil
}

// Check refuses a plan made for another state (lineage), for an older state
// (serial: something was applied since), or for another manifest (hash or
// variables).
func (s *SavedPlan) Check(st *state.File, m *manifest.Manifest) error {
	p := s.Plan
	if p.Lineage != "" && st.Lineage != "" && p.Lineage != st.Lineage {
		return fmt.Errorf("%w: it was made for another state (lineage %s; this state is %s)", ErrStalePlan, p.Lineage, st.Lineage)
	}
	if p.Lineage != st.Lineage || p.Serial != st.Serial {
		return fmt.Errorf("%w: the state changed since it was made (serial %d, now %d)", ErrStalePlan, p.Serial, st.Serial)
	}
	if m.Hash != s.ManifestHash {
		return fmt.Errorf("%w: the manifest changed since it was made", ErrStalePlan)
	}
	if !equalJSON(normalizeVars(m.Variables), normalizeVars(s.Variables)) {
		return fmt.Errorf("%w: the variables differ from those it was made with", ErrStalePlan)
	}
	return nil
}

func normalizeVars(v map[string]any) map[string]any {
	if len(v) == 0 {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// Bind attaches the manifest resources of m (loaded with the plan's
// variables) to the plan's actions and checks, with hash, that every input
// file still has the content the plan was computed from.
func (s *SavedPlan) Bind(m *manifest.Manifest, hash HashFunc) error {
	desired, err := Build(m, hash)
	if err != nil {
		return err
	}
	byAddr := make(map[string]*Desired, len(desired))
	for _, d := range desired {
		byAddr[d.Address] = d
	}
	for _, a := range s.Plan.Actions {
		if a.Desired == nil {
			continue
		}
		d, ok := byAddr[a.Address]
		if !ok {
			return fmt.Errorf("%w: %s is no longer in the manifest", ErrStalePlan, a.Address)
		}
		if d.Fingerprint != a.Desired.Fingerprint {
			return fmt.Errorf("%w: %s changed since the plan was made (an input file changed)", ErrStalePlan, a.Address)
		}
		if !slices.Equal(d.Outputs, a.Desired.Outputs) {
			return fmt.Errorf("%w: the outputs of %s differ from the manifest's", ErrStalePlan, a.Address)
		}
		if !sameWire(d.Wire, a.Desired.Wire) {
			return fmt.Errorf("%w: the request of %s differs from the manifest's", ErrStalePlan, a.Address)
		}
		a.Desired.Wire = d.Wire // with what a plan file never holds (a pre-signed query)
		a.Desired.Synthesis, a.Desired.Embedding, a.Desired.Transcription = d.Synthesis, d.Embedding, d.Transcription
	}
	return nil
}

// SamePlan reports whether two plans do the same: the same actions, in the
// same order, with the same records, requests, file operations and costs.
func SamePlan(a, b *Plan) bool {
	x, err1 := json.Marshal(a.Actions)
	y, err2 := json.Marshal(b.Actions)
	return err1 == nil && err2 == nil && bytes.Equal(x, y) && a.Cost == b.Cost
}
