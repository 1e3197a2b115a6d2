package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
)

// MinorityScriptWarn is the share of a text's letters, outside its main
// script, above which a check whose language is chosen by script is
// warned of: the recognizer writes one script, so those words diverge.
const MinorityScriptWarn = 0.10

// thresholdFields set one limit of listen.Thresholds, by its name in the
// manifest (as Thresholds.Validate names it).
var thresholdFields = []struct {
	name string
	set  func(to *listen.Thresholds, from listen.Thresholds)
}{
	{"max_cer", func(to *listen.Thresholds, from listen.Thresholds) { to.MaxCER = from.MaxCER }},
	{"max_wer", func(to *listen.Thresholds, from listen.Thresholds) { to.MaxWER = from.MaxWER }},
	{"max_run", func(to *listen.Thresholds, from listen.Thresholds) { to.MaxRun = from.MaxRun }},
	{"max_missing_tail", func(to *listen.Thresholds, from listen.Thresholds) { to.MaxMissingTail = from.MaxMissingTail }},
	{"noise_words", func(to *listen.Thresholds, from listen.Thresholds) { to.NoiseWords = from.NoiseWords }},
}

// listenOnce checks the limits of a synthesis's listen: once per value
// and position: the instances of a block share it.
func (c *checker) listenOnce(s *manifest.Synthesis) {
	l := s.Details().Listen
	if l == nil || !c.once(onceKey{what: "listen", pos: l.Pos, value: listenKey(l)}) {
		return
	}
	f := func(n string) manifest.Pos { return manifest.FieldPos(l.Fields, n, l.Pos) }
	// Each limit is validated alone, so that its error is at its field.
	for _, tf := range thresholdFields {
		t := listen.DefaultThresholds()
		tf.set(&t, l.Thresholds)
		if err := t.Validate(); err != nil {
			c.ds.Errorf(f(tf.name), "%v", err)
		}
	}
	if l.Regenerate < 0 || l.Regenerate > manifest.MaxRegenerate {
		c.ds.Errorf(f("regenerate"), "listen: regenerate is %d, not from 0 to %d, the most takes a check may add", l.Regenerate, manifest.MaxRegenerate).
			WithHint("each take is billed: the plan prices the worst case")
	}
	if rest := c.cat.Recognition[contract.APIREST].Languages; l.LanguageCode != "" && !slices.Contains(rest, l.LanguageCode) {
		c.unknownName(f("language_code"), "listen: language_code", l.LanguageCode, rest, "")
	}
	c.checkSeams(l, f)
}

// listenKey is what a listen: value's findings depend on.
func listenKey(l *manifest.Listen) string {
	return l.Hash + "\x00" + strconv.Itoa(l.Regenerate) + "\x00" + l.LanguageCode
}

// checkSeams checks listen.seams: the loudness step as a loudness limit,
// the gaps from 0 to MaxSeamGap, the least gap at most the greatest.
func (c *checker) checkSeams(l *manifest.Listen, f func(string) manifest.Pos) {
	if err := manifest.CheckMaxDeviation(l.Seams.MaxStep); err != nil {
		c.ds.Errorf(f("seams.max_step"), "listen: seams.max_step: %v", err)
	}
	inRange := true
	for _, g := range []struct {
		name string
		d    time.Duration
	}{{"max_gap", l.Seams.MaxGap}, {"min_gap", l.Seams.MinGap}} {
		if g.d < 0 || g.d > manifest.MaxSeamGap {
			inRange = false
			c.ds.Errorf(f("seams."+g.name), "listen: seams.%s is %v, not from 0 to %v", g.name, g.d, manifest.MaxSeamGap)
		}
	}
	if inRange && l.Seams.MinGap > l.Seams.MaxGap {
		c.ds.Errorf(f("seams.min_gap"), "listen: seams.min_gap %v is over seams.max_gap %v", l.Seams.MinGap, l.Seams.MaxGap)
	}
}

// listenScript warns of a text checked in a language chosen by its main
// script (hi-en, auto, IND-IN, none: contract.ListenLanguage) when more
// than MinorityScriptWarn of its spoken letters are in other scripts, or
// when no recognition language hears that script (the text is then not
// checked).
func (c *checker) listenScript(s *manifest.Synthesis) {
	sd := s.Details()
	l := sd.Listen
	if l == nil || l.LanguageCode != "" || slices.Contains(c.cat.Recognition[contract.APIREST].Languages, s.Language) {
		return
	}
	fallback := manifest.FieldPos(s.Fields, "text", manifest.FieldPos(s.Fields, "text_file", s.Pos))
	pos := newTextPos(s, fallback).at(0)
	if !c.once(onceKey{what: "listen script", pos: pos, value: s.Language + "\x00" + s.Text}) {
		return
	}
	text := s.Text
	if sd.Lexicon != nil {
		text, _ = sd.Lexicon.Apply(text, s.Language)
	}
	_, share := narration.DominantScript(text)
	code, how := contract.ListenLanguage(s.Language, "", text)
	if code != "" && 1-share <= MinorityScriptWarn || !c.textWarning(pos) {
		return
	}
	if code == "" {
		c.ds.Warnf(pos, "listen: this text is not checked: %s", how).
			WithHint("set listen.language_code to the language it is spoken in")
		return
	}
	c.ds.Warnf(pos, "listen: this text is heard in %s (%s), yet %s of its letters are in other scripts, which the transcript will not write as sent",
		code, how, percent(1-share)).
		WithHint("set listen.language_code, loosen listen's limits, or write the text in one script (over %s warns)", percent(MinorityScriptWarn))
}

// percent writes a share as a whole percentage, rounded down ("38%").
func percent(share float64) string {
	return fmt.Sprintf("%d%%", int(math.Floor(share*100+1e-9)))
}
