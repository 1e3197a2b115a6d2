package manifest

import (
	"bytes"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/owned"
)

// MaxTextFileBytes is the largest text_file a synthesis reads: 4 MiB, some
// two million Devanagari characters, twenty times the longest chapter
// voxform is measured with (100,000 characters). Its text is checked,
// split and fingerprinted on every plan.
const MaxTextFileBytes = 4 << 20

// textFile is a text_file read once however many syntheses name it; ok
// is false when it was refused (that is reported once).
type textFile struct {
	text string
	ok   bool
}

// lexiconFile is a lexicon read once however many syntheses name it.
type lexiconFile struct {
	lex *narration.Lexicon
	ok  bool
}

// inputRel checks a path a synthesis reads: relative to the manifest
// directory and inside it, in clean form, not voxform's own (owned.CheckRel).
// A refused path is reported at the field.
func (x *expander) inputRel(f *field, what, p string) (string, bool) {
	rel := filepath.ToSlash(p)
	if err := owned.CheckRel(rel); err != nil {
		x.failed = true
		var oe *owned.Error
		reason := err.Error()
		if errors.As(err, &oe) {
			reason = oe.Reason
		}
		if strings.HasPrefix(rel, "/") { // CheckRel speaks of outputs
			reason = "is an absolute path; voxform reads inputs only inside the manifest directory"
		}
		x.ds.Errorf(f.Pos(), "%s %q %s", what, p, reason).
			WithHint("name a file inside the manifest directory, relative to it")
		return "", false
	}
	return rel, true
}

// synthesisText sets a synthesis's text from text: or text_file: (the
// schema checks that exactly one is set). A text_file is read once: its
// content is the text, and positions inside the text point into it.
func (x *expander) synthesisText(s *Synthesis, d *SynthesisDetails, fs map[string]*field, sc *scope) {
	f := fs["text_file"]
	if f == nil {
		s.Text, s.TextSpans, _ = x.str(fs["text"], sc)
		return
	}
	if _, both := fs["text"]; both {
		return // reported by the schema: one or the other
	}
	p, _, ok := x.str(f, sc)
	if !ok {
		return
	}
	rel, ok := x.inputRel(f, "text_file", p)
	if !ok {
		return
	}
	tf := x.texts[rel]
	if tf == nil {
		tf = x.readText(f, rel)
		x.texts[rel] = tf
	}
	if !tf.ok {
		x.failed = true
		return
	}
	s.Text, d.TextFile = tf.text, rel
	s.TextSpans = []Span{{Offset: 0, Pos: Pos{File: rel, Line: 1, Col: 1}, Exact: true}}
}

// readText reads a text_file: UTF-8 (a byte order mark is dropped) of at
// most MaxTextFileBytes. A problem is reported at the field, or at the
// invalid byte's line and column in the file.
func (x *expander) readText(f *field, rel string) *textFile {
	src, err := x.raw.readInput(rel, MaxTextFileBytes)
	if err != nil {
		x.ds.Errorf(f.Pos(), "text_file %q: %v", rel, errCause(err))
		return &textFile{}
	}
	if len(src) > MaxTextFileBytes {
		x.ds.Errorf(f.Pos(), "text_file %s is larger than %s bytes (%s), the limit for a text_file (MaxTextFileBytes)",
			rel, numfmt.Thousands(MaxTextFileBytes), mib(MaxTextFileBytes)).
			WithHint("split the text into several files, one synthesis each")
		return &textFile{}
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		off := invalidUTF8(src)
		x.ds.Errorf(offsetPos(rel, src, off), "text_file %s is not valid UTF-8: byte 0x%02x", rel, src[off]).
			WithHint("save the file as UTF-8")
		return &textFile{}
	}
	x.hashFiles = append(x.hashFiles, hashed{name: "text:" + rel, data: src})
	return &textFile{text: string(src), ok: true}
}

// invalidUTF8 returns the offset of the first byte of src that is not
// valid UTF-8.
func invalidUTF8(src []byte) int {
	off := 0
	for off < len(src) {
		r, w := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && w == 1 {
			return off
		}
		off += w
	}
	return off
}

// synthesisLexicon sets a synthesis's lexicon from lexicon: (a .csv, .tsv,
// .yaml, .yml, .pls or .xml file, narration.ParseLexicon). A lexicon is read once; its
// problems are reported at their place in it.
func (x *expander) synthesisLexicon(d *SynthesisDetails, fs map[string]*field, sc *scope) {
	f := fs["lexicon"]
	p, _, ok := x.str(f, sc)
	if !ok {
		return
	}
	rel, ok := x.inputRel(f, "lexicon", p)
	if !ok {
		return
	}
	lf := x.lexicons[rel]
	if lf == nil {
		lf = x.readLexicon(f, rel)
		x.lexicons[rel] = lf
	}
	if !lf.ok {
		x.failed = true
		return
	}
	d.LexiconFile, d.Lexicon = rel, lf.lex
}

// readLexicon reads and parses a lexicon file of at most
// narration.MaxLexiconBytes.
func (x *expander) readLexicon(f *field, rel string) *lexiconFile {
	src, err := x.raw.readInput(rel, narration.MaxLexiconBytes)
	if err != nil {
		x.ds.Errorf(f.Pos(), "lexicon %q: %v", rel, errCause(err))
		return &lexiconFile{}
	}
	lex, err := narration.ParseLexicon(rel, src)
	var list narration.ErrorList
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			x.ds.Errorf(Pos{File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col}, "%s", e.Msg)
		}
		return &lexiconFile{}
	case err != nil:
		x.ds.Errorf(f.Pos(), "lexicon %q: %v", rel, err)
		return &lexiconFile{}
	}
	for _, w := range lex.Warnings() {
		d := x.ds.Warnf(Pos{File: w.Pos.File, Line: w.Pos.Line, Col: w.Pos.Col}, "%s", w.Msg).
			WithHint("give the lexeme an <alias> that spells how it is said: an alias applies as an entry")
		d.Kind = "lexicon: a lexeme that cannot apply"
	}
	x.hashFiles = append(x.hashFiles, hashed{name: "lexicon:" + rel, data: src})
	return &lexiconFile{lex: lex, ok: true}
}

// lexiconLanguage refuses, at its lexicon field f, a lexicon that declares
// a language (a PLS lexicon's xml:lang) for which none of its entries
// would apply to s's text (narration.LanguageApplies: en applies to en-IN,
// en-US does not).
func (x *expander) lexiconLanguage(s *Synthesis, d *SynthesisDetails, f *field) bool {
	lang, at := d.Lexicon.Language()
	if lang == "" || narration.LanguageApplies(lang, s.Language) {
		return true
	}
	x.failed = true
	in := "has no language"
	if s.Language != "" {
		in = "is in " + s.Language
	}
	x.ds.Errorf(f.Pos(), "lexicon %s is for %s (xml:lang at %s), and %s %s: none of its entries would apply", d.LexiconFile, lang, at, s.Address, in).
		WithHint("a lexicon applies to texts in its xml:lang, or in any region of it when xml:lang names only the language (xml:lang=\"en\" applies to en-IN): use a lexicon for %s", languageOr(s.Language))
	return false
}

func languageOr(l string) string {
	if l == "" {
		return "every language"
	}
	return l
}

// textInputs lists the text files and lexicons read, sorted.
func (x *expander) textInputs() []string {
	var out []string
	for rel, tf := range x.texts {
		if tf.ok {
			out = append(out, rel)
		}
	}
	for rel, lf := range x.lexicons {
		if lf.ok {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// spokenCount is what spokenBound has counted: the bytes lexicons added
// so far, and the length of each text_file with a lexicon and a language
// applied, measured once however many syntheses share them.
type spokenCount struct {
	added  int
	over   bool
	byFile map[spokenKey]int
}

type spokenKey struct{ text, lexicon, language string }

// spokenBound refuses, at its lexicon field f, a synthesis whose lexicon
// is for another language (lexiconLanguage: the language is known only
// now, after the voice's is inherited), or whose text with
// the lexicon applied is longer than MaxSpokenTextBytes, or whose lexicon
// brings what lexicons add to the manifest's texts over
// MaxLexiconAddedBytes. The text is measured, never made.
func (x *expander) spokenBound(s *Synthesis, d *SynthesisDetails, f *field) {
	if d.Lexicon == nil || f == nil || !x.lexiconLanguage(s, d, f) || x.spoken.over {
		return
	}
	n, over := x.spokenLen(s, d)
	if over {
		x.failed = true
		x.ds.Errorf(f.Pos(), "lexicon %s makes the text of %s longer than %s bytes (%s), the limit for a text with its lexicon applied (MaxSpokenTextBytes)",
			d.LexiconFile, s.Address, numfmt.Thousands(MaxSpokenTextBytes), mib(MaxSpokenTextBytes)).
			WithHint("a spoken form should say its term, not repeat text: shorten the spoken forms, or split the text")
		return
	}
	if x.spoken.added += max(n-len(s.Text), 0); x.spoken.added > MaxLexiconAddedBytes {
		x.failed, x.spoken.over = true, true
		x.ds.Errorf(f.Pos(), "lexicon %s brings the bytes lexicons add to the texts of this manifest over %s (%s), the limit for one manifest (MaxLexiconAddedBytes)",
			d.LexiconFile, numfmt.Thousands(MaxLexiconAddedBytes), mib(MaxLexiconAddedBytes)).
			WithHint("each synthesis's text is spoken with its lexicon applied: shorten the spoken forms, or use the lexicon in fewer places")
	}
}

// spokenLen measures s's text with its lexicon applied, up to
// MaxSpokenTextBytes; a text_file's is measured once per lexicon and
// language.
func (x *expander) spokenLen(s *Synthesis, d *SynthesisDetails) (int, bool) {
	if d.TextFile == "" {
		return d.Lexicon.SpokenLen(s.Text, s.Language, MaxSpokenTextBytes)
	}
	k := spokenKey{d.TextFile, d.LexiconFile, s.Language}
	if n, ok := x.spoken.byFile[k]; ok {
		return n, n > MaxSpokenTextBytes
	}
	n, over := d.Lexicon.SpokenLen(s.Text, s.Language, MaxSpokenTextBytes)
	if x.spoken.byFile == nil {
		x.spoken.byFile = map[spokenKey]int{}
	}
	x.spoken.byFile[k] = n
	return n, over
}
