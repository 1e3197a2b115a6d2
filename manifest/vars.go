package manifest

import (
	"errors"
	"os"
	"strings"

	"github.com/voxform/voxform/owned"
	"go.yaml.in/yaml/v3"
)

// resolveVars computes the variables with Terraform's precedence: a
// manifest default < VOXFORM_VAR_NAME < -var-file (later files win) < -var
// (later flags win).
func (x *expander) resolveVars() map[string]value {
	vars := map[string]value{}
	declared := map[string]bool{}
	for _, name := range x.raw.sortedNames("variables") {
		b := x.raw.Blocks["variables"][name]
		declared[name] = true
		v, err := ToJSON(b.Node)
		if err != nil {
			x.ds.Errorf(b.Pos(), "variable %q: %v", name, err)
			continue
		}
		vars[name] = value{V: v, Pos: valuePos(b.File, b.Node), Exact: exactScalar(b.Node)}
	}
	for _, kv := range x.opts.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, "VOXFORM_VAR_") {
			continue
		}
		name := strings.TrimPrefix(k, "VOXFORM_VAR_")
		if declared[name] {
			vars[name] = value{V: v, Pos: Pos{File: "$" + k}}
		}
	}
	names := mapKeys(declared)
	for _, vf := range x.opts.VarFiles {
		x.readVarFile(vf, declared, names, vars)
	}
	for _, kv := range x.opts.Vars {
		name, v, ok := strings.Cut(kv, "=")
		pos := Pos{File: "-var " + name}
		if !ok || name == "" {
			x.ds.Errorf(Pos{File: "-var"}, "-var %q: want NAME=VALUE", kv)
			continue
		}
		if !declared[name] {
			d := x.ds.Errorf(pos, "no variable %q is declared", name)
			if s := x.sg.Suggest(name, names); s != "" {
				d.WithHint("did you mean %q?", s)
			} else {
				d.WithHint("declare it under variables: in the manifest")
			}
			continue
		}
		vars[name] = value{V: v, Pos: pos}
	}
	return vars
}

// readVarFile reads one -var-file (YAML; JSON is YAML) into vars.
func (x *expander) readVarFile(path string, declared map[string]bool, names []string, vars map[string]value) {
	src, err := x.raw.readInput(path, MaxManifestBytes)
	if err != nil {
		x.ds.Errorf(Pos{File: path}, "read -var-file %s: %v", path, errCause(err))
		return
	}
	if tooLarge(path, src, MaxManifestBytes, "-var-file", &x.ds) {
		return
	}
	x.hashFiles = append(x.hashFiles, hashed{name: "var-file:" + path, data: src})
	// A -var-file beside the manifests was parsed with them.
	doc := x.raw.dataDocument(path, src)
	if doc == nil {
		doc = &yaml.Node{}
		if err := yaml.Unmarshal(src, doc); err != nil {
			x.ds.Errorf(Pos{File: path, Line: 1, Col: 1}, "invalid -var-file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
			return
		}
		if !checkAliases(path, doc, &x.ds) {
			return
		}
	}
	root := deref(doc)
	if isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		x.ds.Errorf(nodePos(path, root), "-var-file %s: want a map of variable names to values", path)
		return
	}
	checkDuplicateKeys(path, root, &x.ds, 0)
	for _, e := range entries(root) {
		name := e.Key.Value
		if !declared[name] {
			d := x.ds.Warnf(nodePos(path, e.Key), "-var-file sets %q, which no manifest declares", name)
			if s := x.sg.Suggest(name, names); s != "" {
				d.WithHint("did you mean %q?", s)
			}
			continue
		}
		v, err := ToJSON(e.Val)
		if err != nil {
			x.ds.Errorf(nodePos(path, e.Val), "variable %q: %v", name, err)
			continue
		}
		vars[name] = value{V: v, Pos: nodePos(path, deref(e.Val)), Exact: exactScalar(e.Val)}
	}
}

// exactScalar reports whether a string scalar's source holds its value
// verbatim on one line (plain or single-quoted without escapes).
func exactScalar(n *yaml.Node) bool {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
		return false
	}
	return n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 &&
		(n.Style&yaml.DoubleQuotedStyle == 0 || !strings.Contains(n.Value, "\\")) &&
		(n.Style&yaml.SingleQuotedStyle == 0 || !strings.Contains(n.Value, "'"))
}

// errCause strips the path os errors and owned's refusals repeat.
func errCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	if oe, ok := err.(*owned.Error); ok {
		return errors.New(oe.Reason)
	}
	return err
}
