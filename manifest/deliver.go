package manifest

import (
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/deliver"
)

// deliverSpec is a deliver: value evaluated: its entries with their
// profiles resolved. One without references is evaluated once and
// shared by every synthesis it applies to (x.delivers holds them by
// node); each synthesis then places its own outputs.
type deliverSpec struct {
	items  []deliverItem
	failed bool // reported; every synthesis it applies to is dropped
}

// deliverItem is one entry of a deliver: value.
type deliverItem struct {
	profile *deliver.Profile
	output  *field // nil: the default path beside the synthesis's output
	pos     Pos    // the profile name
}

// deliveryExtensions are the file extensions a delivered file of each
// container may have, the first the one Profile.Extension gives.
var deliveryExtensions = map[string][]string{
	deliver.ContainerWAV: {".wav", ".wave"},
	deliver.ContainerMP3: {".mp3"},
	deliver.ContainerMP4: {".m4a", ".mp4"},
	deliver.ContainerOgg: {".ogg", ".opus"},
}

// deliveries evaluates a synthesis's deliver: into its Deliver, each
// output placed: as written (interpolated for this instance), or by
// default <dir of output>/<profile>/<stem of output>.<extension>. Nil
// when not set, null or an empty list.
func (x *expander) deliveries(s *Synthesis, f *field, sc *scope) []Delivery {
	spec := x.blockDeliver(f, sc)
	if spec == nil {
		return nil
	}
	if spec.failed {
		x.failed = true
		return nil
	}
	out := make([]Delivery, 0, len(spec.items))
	for _, it := range spec.items {
		d := Delivery{Profile: it.profile, Pos: it.pos}
		switch {
		case it.output != nil:
			o, _, ok := x.str(it.output, sc)
			if !ok {
				continue
			}
			d.Output, d.Pos = cleanRel(o), valuePos(it.output.File, it.output.Val)
			if !x.deliveredExtension(d, o) {
				continue
			}
		case s.Output != "":
			d.Output = DefaultDelivered(s.Output, it.profile)
		default:
			continue // no output: reported by the schema
		}
		out = append(out, d)
	}
	return out
}

// DefaultDelivered is where a delivery without an output: goes: in a
// directory named after the profile beside the synthesis's output, named
// as the output with the profile's extension
// (build/ivr/welcome.ulaw -> build/ivr/telephony/welcome.wav).
func DefaultDelivered(output string, p *deliver.Profile) string {
	base := path.Base(output)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return path.Join(path.Dir(output), p.Name, stem+"."+p.Extension())
}

// deliveredExtension reports whether a delivered output's extension is
// one of its container's; a mismatch is reported once per position (an
// interpolated output is the same mistake in every instance).
func (x *expander) deliveredExtension(d Delivery, written string) bool {
	exts := deliveryExtensions[d.Profile.Encoding.Container]
	ext := strings.ToLower(path.Ext(d.Output))
	if slices.Contains(exts, ext) {
		return true
	}
	x.failed = true
	if x.deliverErrs[d.Pos] {
		return false
	}
	x.deliverErrs[d.Pos] = true
	what := "has extension " + ext
	if ext == "" {
		what = "has no extension"
	}
	x.ds.Errorf(d.Pos, "deliver: output %q %s, but profile %q delivers %s audio (%s)",
		written, what, d.Profile.Name, d.Profile.Encoding.Container, strings.Join(exts, " or ")).
		WithHint("name it %s, or leave output: out for %s",
			strings.TrimSuffix(written, path.Ext(written))+exts[0], DefaultDelivered("DIR/NAME", d.Profile))
	return false
}

// blockDeliver evaluates a deliver: value once per node when it holds no
// reference (see deliverSpec); nil when not set, null or empty.
func (x *expander) blockDeliver(f *field, sc *scope) *deliverSpec {
	if f == nil || isNull(f.Val) {
		return nil
	}
	n := deref(f.Val)
	if spec, ok := x.delivers[n]; ok {
		return spec
	}
	failed := x.failed
	x.failed = false
	spec := x.deliverSpec(f, sc)
	spec.failed = x.failed
	if !referencesBelow(n, 0) {
		x.delivers[n] = spec
	}
	x.failed = failed || spec.failed
	if len(spec.items) == 0 && !spec.failed {
		return nil
	}
	return spec
}

// deliverSpec evaluates deliver:: a profile name, a list whose items are
// names or maps of profile and output, or one such map.
func (x *expander) deliverSpec(f *field, sc *scope) *deliverSpec {
	n := deref(f.Val)
	items := []*yaml.Node{n}
	switch n.Kind {
	case yaml.SequenceNode:
		items = n.Content
	case yaml.ScalarNode, yaml.MappingNode:
	default:
		x.failed = true
		x.ds.Errorf(f.Pos(), "deliver: want a profile name, a list of names, or a list of {profile, output}")
		return &deliverSpec{}
	}
	spec := &deliverSpec{}
	seen := map[string]Pos{}
	for i, it := range items {
		if i == MaxDeliveries {
			x.failed = true
			x.ds.Errorf(nodePos(f.File, deref(it)), "deliver: entry %d is past the %d deliveries a synthesis may have", i+1, MaxDeliveries).
				WithHint("each delivery masters the audio again; deliver the others from another synthesis")
			break
		}
		item, ok := x.deliverItem(f.File, deref(it), sc)
		if !ok {
			continue
		}
		if prev, dup := seen[item.profile.Name]; dup {
			x.failed = true
			x.ds.Errorf(item.pos, "deliver: profile %q is delivered twice by this synthesis (first at %s)", item.profile.Name, prev).
				WithHint("a synthesis delivers each profile once; declare a custom profile under delivery_profiles: for another form")
			continue
		}
		seen[item.profile.Name] = item.pos
		spec.items = append(spec.items, item)
	}
	return spec
}

// deliverItem evaluates one entry: a name, or a map of profile and
// output.
func (x *expander) deliverItem(file string, n *yaml.Node, sc *scope) (deliverItem, bool) {
	pf := &field{Name: "deliver", File: file, Val: n}
	var out *field
	switch {
	case n == nil || isNull(n):
		x.failed = true
		x.ds.Errorf(nodePos(file, n), "deliver: this entry is empty").WithHint("name a profile, or write { profile: NAME, output: PATH }")
		return deliverItem{}, false
	case n.Kind == yaml.MappingNode:
		fs := fieldsOf(file, n)
		for name, sf := range fs {
			if name != "profile" && name != "output" {
				x.failed = true
				x.ds.Errorf(nodePos(file, sf.Key), "deliver: unknown field %q", name).WithHint("a delivery has profile and output")
			}
		}
		if pf = fs["profile"]; pf == nil || isNull(pf.Val) {
			x.failed = true
			x.ds.Errorf(nodePos(file, n), "deliver: this entry names no profile").WithHint("write { profile: NAME, output: PATH }")
			return deliverItem{}, false
		}
		if out = fs["output"]; out != nil && isNull(out.Val) {
			out = nil // the default path
		}
	case n.Kind != yaml.ScalarNode:
		x.failed = true
		x.ds.Errorf(nodePos(file, n), "deliver: want a profile name or {profile, output}")
		return deliverItem{}, false
	}
	name, _, ok := x.str(pf, sc)
	if !ok {
		return deliverItem{}, false
	}
	p := x.profileNamed(name, pf.Pos(), "deliver")
	if p == nil {
		return deliverItem{}, false
	}
	return deliverItem{profile: p, output: out, pos: pf.Pos()}, true
}

// profileNamed resolves a profile name: a delivery_profiles: entry or a
// built-in. An unknown one is reported at pos, naming every profile; one
// whose delivery_profiles: entry was refused is not reported again.
func (x *expander) profileNamed(name string, pos Pos, what string) *deliver.Profile {
	if p := x.m.DeliveryProfiles[name]; p != nil {
		return p
	}
	if p := deliver.Builtin(name); p != nil {
		return p
	}
	x.failed = true
	if x.badProfiles[name] {
		return nil
	}
	builtins := deliver.BuiltinNames()
	custom := "none"
	if len(x.profileNames) > 0 {
		custom = strings.Join(x.profileNames, ", ")
	}
	d := x.ds.Errorf(pos, "%s: unknown delivery profile %q (built-in: %s; delivery_profiles: %s)", what, name, strings.Join(builtins, ", "), custom)
	if sg := x.sg.Suggest(name, x.profileCandidates); sg != "" {
		d.WithHint("did you mean %q?", sg)
	} else {
		d.WithHint("declare it under delivery_profiles:, or name a built-in")
	}
	return nil
}

// referencesBelow reports whether any scalar below n holds a ${
// reference.
func referencesBelow(n *yaml.Node, depth int) bool {
	n = deref(n)
	if n == nil || depth > maxMergeDepth {
		return n != nil
	}
	if n.Kind == yaml.ScalarNode {
		return strings.Contains(n.Value, "${")
	}
	if n.Kind == yaml.MappingNode {
		for _, e := range entries(n) {
			if referencesBelow(e.Val, depth+1) {
				return true
			}
		}
		return false
	}
	for _, c := range n.Content {
		if referencesBelow(c, depth+1) {
			return true
		}
	}
	return false
}
