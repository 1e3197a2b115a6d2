package schema

import (
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
)

// Bounds of ExplainLexicons: a chapter with a lexicon of common words
// makes thousands of replacements, of which a person reads the first.
const (
	// MaxExplainPerSynthesis is how many replacements are listed for one
	// synthesis: 50.
	MaxExplainPerSynthesis = 50
	// MaxExplainTotal is how many are listed for the whole manifest: 500.
	MaxExplainTotal = 500
)

// LexiconUse is one replacement a lexicon makes in a synthesis's text.
type LexiconUse struct {
	// Pos is where the replaced text starts in the text as written (in
	// the text_file for a text read from one).
	Pos manifest.Pos
	// Term is the replaced text as written; Spoken is what is sent
	// instead.
	Term, Spoken string
	// Entry is where the entry that matched is in the lexicon file.
	Entry narration.Pos
}

// LexiconExplanation says what a synthesis's lexicon does to its text.
type LexiconExplanation struct {
	Address string
	Lexicon string // the lexicon file, relative to the manifest directory
	// Uses are the replacements listed, in text order; Total counts all
	// of them (Total - len(Uses) are not listed, see the Max constants).
	Uses  []LexiconUse
	Total int
	// Uncovered counts the digit runs no entry covers
	// (narration.UncoveredDigits), which validation warns about.
	Uncovered int
}

// ExplainLexicons applies each synthesis's lexicon to its text as the
// planner does (planner.SentText) and says where each entry applied, in
// address order, syntheses without a lexicon left out. At most
// MaxExplainPerSynthesis replacements are listed per synthesis and
// MaxExplainTotal in all; the counts cover every one. It takes time linear
// in the texts.
func ExplainLexicons(m *manifest.Manifest) []LexiconExplanation {
	if m == nil {
		return nil
	}
	var out []LexiconExplanation
	listed := 0
	for _, s := range m.Syntheses {
		sd := s.Details()
		if sd.Lexicon == nil {
			continue
		}
		_, applied := sd.Lexicon.Apply(s.Text, s.Language)
		e := LexiconExplanation{Address: s.Address, Lexicon: sd.LexiconFile, Total: len(applied),
			Uncovered: len(narration.UncoveredDigits(s.Text, applied))}
		n := min(len(applied), MaxExplainPerSynthesis, MaxExplainTotal-listed)
		if n > 0 {
			pos := newTextPos(s, manifest.FieldPos(s.Fields, "text", manifest.FieldPos(s.Fields, "text_file", s.Pos))).at
			e.Uses = make([]LexiconUse, n)
			for i, a := range applied[:n] {
				e.Uses[i] = LexiconUse{Pos: pos(a.Start), Term: s.Text[a.Start:a.End], Spoken: a.Entry.Spoken, Entry: a.Entry.Pos}
			}
			listed += n
		}
		out = append(out, e)
	}
	return out
}
