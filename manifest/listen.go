package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/voxform/voxform/listen"
	"go.yaml.in/yaml/v3"
)

// blockListen evaluates a synthesis's listen:; one without references is
// evaluated once and shared by every synthesis it applies to (the
// instances of a block, and the blocks a default reaches): it is
// read-only (x.listens holds them by node). Nil when not set, null or
// false.
func (x *expander) blockListen(f *field, sc *scope) *Listen {
	if f == nil || isNull(f.Val) {
		return nil
	}
	n := deref(f.Val)
	if l, ok := x.listens[n]; ok {
		return l
	}
	failed := x.failed
	x.failed = false
	l := x.listen(f, sc)
	if !x.failed && !hasReference(n) {
		x.listens[n] = l
	}
	x.failed = x.failed || failed
	return l
}

// listen evaluates listen: true, false or a map of the check's fields.
func (x *expander) listen(f *field, sc *scope) *Listen {
	n := deref(f.Val)
	l := &Listen{Thresholds: listen.DefaultThresholds(), Seams: DefaultSeams(), Pos: valuePos(f.File, f.Val), Fields: map[string]Pos{}}
	switch n.Kind {
	case yaml.ScalarNode:
		on, ok := x.boolean(f, sc)
		if !ok || !on {
			return nil
		}
	case yaml.MappingNode:
		for _, e := range entries(n) {
			sf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
			l.Fields[sf.Name] = valuePos(f.File, e.Val)
			if sf.Name == "seams" {
				x.seams(l, sf, sc)
				continue
			}
			x.listenField(l, sf, sc)
		}
	default:
		x.failed = true
		x.ds.Errorf(l.Pos, "listen: want true, false or a map of the check's limits").
			WithHint("listen: true checks with the default limits")
		return nil
	}
	l.Hash = l.hash()
	return l
}

// listenField sets one field of a listen: map.
func (x *expander) listenField(l *Listen, f *field, sc *scope) {
	t := &l.Thresholds
	ints := map[string]*int{"max_run": &t.MaxRun, "max_missing_tail": &t.MaxMissingTail, "noise_words": &t.NoiseWords, "regenerate": &l.Regenerate}
	switch f.Name {
	case "max_cer", "max_wer":
		if v, ok := x.number(f, sc); ok {
			if f.Name == "max_cer" {
				t.MaxCER = v
			} else {
				t.MaxWER = v
			}
		}
	case "language_code":
		l.LanguageCode, _, _ = x.str(f, sc)
	default:
		if p := ints[f.Name]; p != nil {
			if v, ok := x.integer(f, sc); ok {
				*p = int(v)
			}
		}
	}
}

// seams sets the fields of listen.seams.
func (x *expander) seams(l *Listen, f *field, sc *scope) {
	for _, e := range entries(f.Val) {
		sf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
		l.Fields["seams."+sf.Name] = valuePos(f.File, e.Val)
		switch sf.Name {
		case "max_step":
			if v, ok := x.number(sf, sc); ok {
				l.Seams.MaxStep = v
			}
		case "max_gap":
			if d, ok := x.gap(sf, sc); ok {
				l.Seams.MaxGap = d
			}
		case "min_gap":
			if d, ok := x.gap(sf, sc); ok {
				l.Seams.MinGap = d
			}
		}
	}
}

// gap evaluates a seam gap: a duration as x.duration reads one, or zero
// ("0", "0s").
func (x *expander) gap(f *field, sc *scope) (time.Duration, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0, false
	}
	if n, isNum := asFloat(v); isNum && n == 0 {
		return 0, true
	}
	if s, isStr := v.(string); isStr {
		if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil && d == 0 {
			return 0, true
		}
	}
	return x.duration(f, sc)
}

// hash is the Listen's Hash: sha256 of its thresholds and seam limits,
// written canonically.
func (l *Listen) hash() string {
	t, s := l.Thresholds, l.Seams
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	canon := fmt.Sprintf(`{"max_cer":%s,"max_wer":%s,"max_run":%d,"max_missing_tail":%d,"noise_words":%d,"seams":{"max_step":%s,"max_gap_ns":%d,"min_gap_ns":%d}}`,
		f(t.MaxCER), f(t.MaxWER), t.MaxRun, t.MaxMissingTail, t.NoiseWords, f(s.MaxStep), s.MaxGap, s.MinGap)
	sum := sha256.Sum256([]byte(canon))
	return hex.EncodeToString(sum[:])
}
