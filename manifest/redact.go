package manifest

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxRoleLen bounds a channel's role name (channels:), in bytes.
const MaxRoleLen = 64

// MaxChannels is the highest channel count channels: may name (the
// service's audio has at most 8 channels).
const MaxChannels = 8

// redaction evaluates a transcription's redact:, nil when not set, null
// or an empty list. The short form is a list of kinds; the long form a
// map of kinds, keep_unredacted and audio. The kinds themselves are
// checked by the schema pass (redact.NewPolicy).
func (x *expander) redaction(f *field, sc *scope) *Redaction {
	if f == nil || isNull(f.Val) {
		return nil
	}
	r := &Redaction{Pos: valuePos(f.File, f.Val), Fields: map[string]Pos{}}
	switch n := deref(f.Val); n.Kind {
	case yaml.SequenceNode, yaml.ScalarNode:
		r.Kinds, _, _ = x.strList(f, sc)
	case yaml.MappingNode:
		for _, e := range entries(n) {
			sf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
			r.Fields[sf.Name] = valuePos(f.File, e.Val)
			switch sf.Name {
			case "kinds":
				r.Kinds, _, _ = x.strList(sf, sc)
			case "keep_unredacted":
				r.KeepUnredacted, _ = x.boolean(sf, sc)
			case "audio":
				r.Audio, _, _ = x.str(sf, sc)
			}
		}
	default:
		x.failed = true
		x.ds.Errorf(r.Pos, "redact: want a list of kinds or a map of kinds, keep_unredacted and audio").
			WithHint("redact: [mobile, aadhaar, card], or redact: {kinds: all, audio: silence}")
		return nil
	}
	if len(r.Kinds) == 0 {
		x.ds.Errorf(r.Pos, "redact: names no kinds").WithHint("name the kinds of personal data to redact, or all")
		x.failed = true
		return nil
	}
	if r.Audio != "" && r.Audio != "silence" && r.Audio != "beep" {
		x.ds.Errorf(FieldPos(r.Fields, "audio", r.Pos), "redact.audio %q: want silence or beep", r.Audio)
		x.failed = true
		return nil
	}
	return r
}

// channels evaluates channels: a map of channel index (0-based) to the
// role of its speaker.
func (x *expander) channels(f *field, sc *scope) map[int]string {
	if f == nil || isNull(f.Val) {
		return nil
	}
	n := deref(f.Val)
	if n.Kind != yaml.MappingNode {
		x.failed = true
		x.ds.Errorf(valuePos(f.File, f.Val), "channels: want a map of channel number to role").
			WithHint("channels: {0: agent, 1: customer}")
		return nil
	}
	out := map[int]string{}
	for _, e := range entries(n) {
		pos := valuePos(f.File, e.Key)
		ch, err := strconv.Atoi(strings.TrimSpace(e.Key.Value))
		if err != nil || ch < 0 || ch >= MaxChannels {
			x.failed = true
			x.ds.Errorf(pos, "channels: %q is not a channel number from 0 to %d", e.Key.Value, MaxChannels-1)
			continue
		}
		role, _, _ := x.str(&field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}, sc)
		role = strings.TrimSpace(role)
		switch {
		case role == "":
			x.failed = true
			x.ds.Errorf(valuePos(f.File, e.Val), "channels: channel %d has no role", ch)
		case len(role) > MaxRoleLen || strings.ContainsAny(role, "\r\n"):
			x.failed = true
			x.ds.Errorf(valuePos(f.File, e.Val), "channels: the role of channel %d is longer than %d bytes or holds a line break", ch, MaxRoleLen)
		default:
			out[ch] = role
		}
	}
	return out
}
