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

// checkShape refuses an action without what its type needs.
func (a *Action) checkShape() error {
	needDesired, needPrior := true, true
	switch a.Type {
	case Create:
		needPrior = false
	case Restore:
		needPrior = false // a restore stands for a create or a replace
		if a.Details().RestoreFrom == "" {
			return fmt.Errorf("%s: a restore names no cache to restore from", a.Address)
		}
	case Delete:
		needDesired = false
	case Replace, Repair, Move, Resume, Check, Remaster:
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

// CompareSaved refuses a saved plan unless fresh, computed now from the
// locked state and the manifest with the saved plan's options, does exactly
// the same: the same actions in the same order, with the same records,
// requests, file operations and costs. A plan file is a promise of what
// apply does, so nothing in it is taken on trust. The error wraps
// ErrStalePlan and names the first action that differs.
func CompareSaved(fresh, saved *Plan) error {
	stale := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStalePlan, fmt.Sprintf(format, a...))
	}
	for i := 0; i < len(fresh.Actions) || i < len(saved.Actions); i++ {
		if i >= len(fresh.Actions) {
			return stale("%s is no longer to be done", saved.Actions[i].Address)
		}
		if i >= len(saved.Actions) {
			return stale("%s is now to be done too", fresh.Actions[i].Address)
		}
		f, s := fresh.Actions[i], saved.Actions[i]
		x, err1 := json.Marshal(f)
		y, err2 := json.Marshal(s)
		if err1 == nil && err2 == nil && bytes.Equal(x, y) {
			continue
		}
		switch {
		case f.Address != s.Address:
			return stale("it does %s where apply would now do %s", s.Address, f.Address)
		case f.Type != s.Type:
			return stale("%s is planned as %s; apply would now %s it", f.Address, s.Type, f.Type)
		case f.Desired != nil && s.Desired != nil && f.Desired.Fingerprint != s.Desired.Fingerprint:
			return stale("%s changed since the plan was made (an input file or the request changed)", f.Address)
		case f.Desired != nil && s.Desired != nil && !slices.Equal(f.Desired.Outputs, s.Desired.Outputs):
			return stale("the outputs of %s differ from the manifest's", f.Address)
		case !sameListen(f.Listen, s.Listen):
			return stale("%s: its listening checks differ from those apply would make now (%s; now %s)", f.Address, listenFigures(s.Listen), listenFigures(f.Listen))
		}
		return stale("%s: it no longer says what apply would do now (an output was changed, moved or removed since, or the file was edited)", f.Address)
	}
	if fresh.Cost != saved.Cost {
		return stale("its cost differs from what apply would bill now")
	}
	if fresh.Worst != saved.Worst {
		return stale("its worst case differs from what apply could bill now")
	}
	return nil
}

// sameListen reports whether two actions' listening work is the same.
func sameListen(a, b *ListenWork) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// listenFigures is what a plan's listening work makes, for a stale plan's
// error: "3 checks of 0h01m05s of audio", or "no checks".
func listenFigures(w *ListenWork) string {
	if w == nil || w.Make == 0 {
		return "no checks"
	}
	return fmt.Sprintf("%d check%s of %s of audio", w.Make, plural(w.Make), Duration(w.AudioSeconds))
}
