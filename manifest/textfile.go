package manifest

import (
	"bytes"
	"errors"
	"path/filepath"
	"sort"
	"unicode/utf8"

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
		x.ds.Errorf(f.Pos(), "%s %q %s", what, p, reason).
			WithHint("name a file inside the manifest directory, relative to it")
		return "", false
	}
	return rel, true
}

// synthesisText sets a synthesis's text from text: or text_file: (the
// schema checks that exactly one is set). A text_file is read once: its
// content is the text, and positions inside the text point into it.
func (x *expander) synthesisText(s *Synthesis, fs map[string]*field, sc *scope) {
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
	s.Text, s.TextFile = tf.text, rel
	s.TextSpans = []Span{{Offset: 0, Pos: Pos{File: rel, Line: 1, Col: 1}, Exact: true}}
}

// readText reads a text_file: UTF-8 (a byte order mark is dropped) of at
// most MaxTextFileBytes. A problem is reported at the field, or at the
// invalid byte's line and column in the file.
func (x *expander) readText(f *field, rel string) *textFile {
	src, err := readLimited(filepath.Join(x.raw.Dir, filepath.FromSlash(rel)), MaxTextFileBytes)
	if err != nil {
		x.ds.Errorf(f.Pos(), "text_file %q: %v", rel, errCause(err))
		return &textFile{}
	}
	if len(src) > MaxTextFileBytes {
		x.ds.Errorf(f.Pos(), "text_file %s is larger than %s bytes (%s), the limit for a text_file (MaxTextFileBytes)",
			rel, thousands(MaxTextFileBytes), mib(MaxTextFileBytes)).
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
// .yaml or .yml file, narration.ParseLexicon). A lexicon is read once; its
// problems are reported at their place in it.
func (x *expander) synthesisLexicon(s *Synthesis, fs map[string]*field, sc *scope) {
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
	s.LexiconFile, s.Lexicon = rel, lf.lex
}

// readLexicon reads and parses a lexicon file of at most
// narration.MaxLexiconBytes.
func (x *expander) readLexicon(f *field, rel string) *lexiconFile {
	src, err := readLimited(filepath.Join(x.raw.Dir, filepath.FromSlash(rel)), narration.MaxLexiconBytes)
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
	x.hashFiles = append(x.hashFiles, hashed{name: "lexicon:" + rel, data: src})
	return &lexiconFile{lex: lex, ok: true}
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
