package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/voxform/voxform/owned"
)

// checkOwnership decides, for every path an action writes, whether the
// executor may replace a file there: yes when the state records an output
// at that path (it is voxform's, of this resource or of another), or with
// Options.Overwrite. Otherwise a file already there is not voxform's and
// the action is refused, naming it, before anything is paid for.
func (c *computer) checkOwnership() error {
	recorded := make(map[string]bool)
	for _, r := range c.st.Resources {
		for _, o := range r.Outputs {
			recorded[o.Path] = true
		}
	}
	for _, a := range c.actions {
		var foreign []string
		for _, p := range a.writes() {
			if recorded[p] || a.adopted(p) || c.in.Options.Overwrite {
				a.Overwrite = append(a.Overwrite, p)
				continue
			}
			mine, exists, err := c.written(p)
			if err != nil {
				return fmt.Errorf("plan %s: %w", a.Address, err)
			}
			switch {
			case mine:
				a.Overwrite = append(a.Overwrite, p)
			case exists:
				foreign = append(foreign, p)
			}
		}
		sort.Strings(a.Overwrite)
		if len(foreign) > 0 {
			a.Refused = fmt.Sprintf("%s already exists and voxform did not make it", strings.Join(foreign, ", "))
			a.Reasons = append(a.Reasons, "refused: "+a.Refused)
		}
	}
	return nil
}

// written reports whether something is at the manifest-relative path p,
// and whether it is an output voxform renamed into place without recording
// it (state.Written, with the same content).
func (c *computer) written(p string) (mine, exists bool, err error) {
	if c.in.Hash == nil {
		return false, false, nil
	}
	h, err := c.in.Hash(p)
	if err != nil || !h.Exists {
		return false, false, err
	}
	for _, w := range c.st.Written {
		if w.Path == p && w.SHA256 == h.SHA256 {
			return true, true, nil
		}
	}
	return false, true, nil
}

// pathUse is one path an action touches, with what it is for.
type pathUse struct{ role, path string }

// paths lists every path the action writes, moves, deletes or reads an
// output from.
func (a *Action) paths() []pathUse {
	var out []pathUse
	if a.Desired != nil {
		for _, o := range a.Desired.Outputs {
			out = append(out, pathUse{"output", o.Path})
		}
	}
	if a.Prior != nil {
		for _, o := range a.Prior.Outputs {
			out = append(out, pathUse{"recorded output", o.Path})
		}
	}
	for _, m := range a.Moves {
		out = append(out, pathUse{"move from", m.From}, pathUse{"move to", m.To})
	}
	for _, p := range a.Removes {
		out = append(out, pathUse{"removal of", p})
	}
	for _, p := range a.Overwrite {
		out = append(out, pathUse{"overwrite of", p})
	}
	if a.RenderFrom != "" {
		out = append(out, pathUse{"render from", a.RenderFrom})
	}
	return out
}

// CheckPaths refuses a plan that would touch a path voxform does not own:
// every path of every action must pass owned.CheckRel and then check (nil:
// none), which resolves it on the file system (owned.Root.Check). The
// error names the action and what the path is for. Plan and apply call it
// before anything runs.
func (p *Plan) CheckPaths(check func(string) error) error {
	for _, a := range p.Actions {
		for _, u := range a.paths() {
			err := owned.CheckRel(u.path)
			if err == nil && check != nil {
				err = check(u.path)
			}
			if err != nil {
				return fmt.Errorf("%s: %s %w", a.Address, u.role, err)
			}
		}
	}
	return nil
}

// checkConsistent refuses an action of a saved plan whose file operations
// do not follow from its own records: it may remove or move only outputs
// recorded for it, and replace only paths it writes.
func (a *Action) checkConsistent() error {
	recorded := map[string]bool{}
	if a.Prior != nil {
		for _, o := range a.Prior.Outputs {
			recorded[o.Path] = true
		}
	}
	for _, p := range a.Removes {
		if !recorded[p] {
			return fmt.Errorf("%s: removal of %q, which is not an output recorded for it", a.Address, p)
		}
	}
	for _, m := range a.Moves {
		if !recorded[m.From] {
			return fmt.Errorf("%s: move from %q, which is not an output recorded for it", a.Address, m.From)
		}
	}
	writes := a.writes()
	for _, p := range a.Overwrite {
		if !slices.Contains(writes, p) {
			return fmt.Errorf("%s: overwrite of %q, a path it does not write", a.Address, p)
		}
	}
	return nil
}
