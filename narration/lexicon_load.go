package narration

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Bounds of a lexicon file, so that a mistaken input (a data dump, a
// binary) is refused with a positioned error instead of taking seconds
// or memory on every plan. Each error names the limit it crossed.
const (
	// MaxLexiconBytes is the largest lexicon file: 1 MiB, some 20,000
	// entries, parsed in tens of milliseconds.
	MaxLexiconBytes = 1 << 20
	// MaxLexiconEntries is the most entries a lexicon holds: 20,000.
	MaxLexiconEntries = 20_000
	// MaxTermChars is the longest term, in characters: 100. Matching
	// costs at most this many steps at each place of a text.
	MaxTermChars = 100
	// MaxSpokenChars is the longest spoken form, in characters: 500.
	MaxSpokenChars = 500
)

// Pos is a place in a file; Line and Col count from 1, Col in characters.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is a problem in a lexicon file, at its place.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every problem found in a lexicon file, in file order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// LoadLexicon reads a lexicon file (see ParseLexicon); positions name it
// as path.
func LoadLexicon(path string) (*Lexicon, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	defer f.Close()
	return ReadLexicon(path, f)
}

// ReadLexicon reads a lexicon of at most MaxLexiconBytes from r; name
// gives its format (by extension) and its name in positions.
func ReadLexicon(name string, r io.Reader) (*Lexicon, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxLexiconBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read lexicon %s: %w", name, err)
	}
	return ParseLexicon(name, src)
}

// ParseLexicon parses a lexicon; name's extension chooses the format:
//
//   - .csv or .tsv: a header row naming the columns term and spoken
//     (required), language, case and note (optional), then one entry a
//     row; lines starting with # are comments.
//   - .yaml or .yml: a list of mappings with the same keys.
//   - .pls or .xml: a W3C Pronunciation Lexicon Specification 1.0
//     document (version 1.0, in PLSNamespace, with an xml:lang): each
//     <grapheme> of a <lexeme> is a term, spoken as the lexeme's preferred
//     <alias> (the first with prefer="true", else the first), for the
//     lexicon's xml:lang. A lexeme with only <phoneme>s cannot apply (the
//     service takes no phonemes) and is reported in Lexicon.Warnings. The
//     XML is read without a DTD (a <!DOCTYPE> or <!ENTITY> is refused), in
//     UTF-8, nesting at most MaxPLSDepth.
//
// term is the text to find, spoken what to send instead; language limits
// the entry to texts of that language (hi-IN, or hi for every hi-*);
// case is "exact" (match only as written) or "insensitive" (the default);
// note is for people. Terms and spoken forms are trimmed; neither may be
// empty or hold an audio tag (a tag in a spoken form would change the
// delivery of the text after it, speech-synthesis.md, Audio tags rule 1).
// A term defined twice for one language and case is an error. All
// problems are reported, as an ErrorList, each at its file:line:col.
func ParseLexicon(name string, src []byte) (*Lexicon, error) {
	if len(src) > MaxLexiconBytes {
		return nil, ErrorList{{Pos: bytePos(name, src, MaxLexiconBytes),
			Msg: fmt.Sprintf("lexicon is larger than %d bytes (1 MiB), the limit for a lexicon file (MaxLexiconBytes)", MaxLexiconBytes)}}
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, w := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && w == 1 {
				break
			}
			off += w
		}
		return nil, ErrorList{{Pos: bytePos(name, src, off), Msg: "lexicon is not valid UTF-8"}}
	}
	b := &builder{name: name, edges: map[edge]int32{}, seen: map[entryKey]Pos{}}
	b.nodes = append(b.nodes, node{})
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".csv":
		b.readCSV(src, ',')
	case ".tsv":
		b.readCSV(src, '\t')
	case ".yaml", ".yml":
		b.readYAML(src)
	case ".pls", ".xml":
		b.readPLS(src)
	default:
		return nil, fmt.Errorf("read lexicon %s: unknown format %q: use .csv, .tsv, .yaml, .yml, .pls or .xml", name, ext)
	}
	if len(b.errs) > 0 {
		sort.SliceStable(b.errs, func(i, j int) bool {
			a, c := b.errs[i].Pos, b.errs[j].Pos
			return a.Line < c.Line || a.Line == c.Line && a.Col < c.Col
		})
		return nil, b.errs
	}
	return &Lexicon{entries: b.entries, nodes: b.nodes, edges: b.edges,
		language: b.lang, languagePos: b.langPos, warnings: b.warns}, nil
}

// field is one value of an entry with its place.
type field struct {
	value string
	pos   Pos
}

// columns are the keys an entry may have.
var columns = []string{"term", "spoken", "language", "case", "note"}

// builder collects entries, building the trie, and problems.
type builder struct {
	name    string
	entries []*Entry
	nodes   []node
	edges   map[edge]int32
	seen    map[entryKey]Pos
	errs    ErrorList
	full    bool   // MaxLexiconEntries reached
	lang    string // the language the file declares (a PLS xml:lang)
	langPos Pos
	warns   []*Error
}

// entryKey identifies an entry for duplicates: its term as it matches,
// its case rule and its language.
type entryKey struct {
	term     string
	exact    bool
	language string
}

func (b *builder) errorf(p Pos, format string, args ...any) {
	b.errs = append(b.errs, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// languageRE is the shape of a BCP-47 tag as the service's codes use it:
// a 2- or 3-letter language, then subtags (hi-IN, en-IN, hi-en).
var languageRE = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// add checks one entry, given its fields by key and where it starts, and
// adds it.
func (b *builder) add(at Pos, f map[string]field) {
	if b.full {
		return
	}
	if len(b.entries) == MaxLexiconEntries {
		b.errorf(at, "more than %d entries, the limit for a lexicon (MaxLexiconEntries)", MaxLexiconEntries)
		b.full = true
		return
	}
	ok := true
	e := &Entry{Pos: at}
	term, spoken := f["term"], f["spoken"]
	e.Term = strings.Join(strings.FieldsFunc(term.value, isSpace), " ")
	e.Spoken = strings.TrimFunc(spoken.value, isSpace)
	for _, c := range []struct {
		what  string
		f     field
		value string
		limit int
		name  string
	}{{"term", term, e.Term, MaxTermChars, "MaxTermChars"}, {"spoken form", spoken, e.Spoken, MaxSpokenChars, "MaxSpokenChars"}} {
		switch n := utf8.RuneCountInString(c.value); {
		case n == 0:
			b.errorf(c.f.pos, "%s is empty", c.what)
			ok = false
		case n > c.limit:
			b.errorf(c.f.pos, "%s is %d characters, over the limit of %d for a %s (%s)", c.what, n, c.limit, c.what, c.name)
			ok = false
		}
		if t, found := NextTag(c.value, 0); found {
			b.errorf(c.f.pos, "%s holds the audio tag <%s>: tags are not replaced, nor put in by a lexicon", c.what, t.Name)
			ok = false
		}
	}
	if l, has := f["language"]; has && strings.TrimSpace(l.value) != "" {
		e.Language = strings.TrimSpace(l.value)
		if !languageRE.MatchString(e.Language) {
			b.errorf(l.pos, "language %q is not a BCP-47 tag like hi-IN or en-IN", e.Language)
			ok = false
		}
	}
	if c, has := f["case"]; has {
		switch strings.TrimSpace(c.value) {
		case "exact":
			e.Exact = true
		case "insensitive", "":
		default:
			b.errorf(c.pos, "case %q is not exact or insensitive", c.value)
			ok = false
		}
	}
	if ok {
		b.insert(e, term.pos)
	}
}

// insert adds a checked entry to the trie, refusing a duplicate.
func (b *builder) insert(e *Entry, termPos Pos) {
	key := entryKey{term: e.Term, exact: e.Exact, language: strings.ToLower(e.Language)}
	if !e.Exact {
		key.term = strings.Map(fold, e.Term)
	}
	if prev, dup := b.seen[key]; dup {
		b.errorf(termPos, "term %q is defined twice for %s (first at %s)", e.Term, languageName(e.Language), prev)
		return
	}
	b.seen[key] = e.Pos
	n := int32(0)
	for _, r := range e.Term {
		k := edge{n, fold(r)}
		next, ok := b.edges[k]
		if !ok {
			next = int32(len(b.nodes))
			b.nodes = append(b.nodes, node{})
			b.edges[k] = next
		}
		n = next
	}
	b.nodes[n].entries = append(b.nodes[n].entries, int32(len(b.entries)))
	b.entries = append(b.entries, e)
}

func languageName(l string) string {
	if l == "" {
		return "every language"
	}
	return l
}

// readCSV reads a CSV or TSV lexicon.
func (b *builder) readCSV(src []byte, sep rune) {
	r := csv.NewReader(bytes.NewReader(src))
	r.Comma, r.Comment = sep, '#'
	if sep == '\t' {
		r.LazyQuotes = true
	}
	lines := lineStarts(src)
	pos := func(line, col int) Pos {
		start := lines[min(line, len(lines))-1]
		end := min(start+col-1, len(src))
		return Pos{File: b.name, Line: line, Col: utf8.RuneCount(src[start:end]) + 1}
	}
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return // an empty lexicon
	}
	if err != nil {
		b.csvError(err, pos)
		return
	}
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		cols[i] = h
		p := pos(r.FieldPos(i))
		switch {
		case !slices.Contains(columns, h):
			b.errorf(p, "unknown column %q (columns: %s)", header[i], strings.Join(columns, ", "))
		case seen[h]:
			b.errorf(p, "column %q appears twice", h)
		}
		seen[h] = true
	}
	if !seen["term"] || !seen["spoken"] {
		b.errorf(Pos{File: b.name, Line: 1, Col: 1}, "the header row must name the columns term and spoken (it names %s)", strings.Join(cols, ", "))
	}
	if len(b.errs) > 0 {
		return
	}
	for !b.full {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			b.csvError(err, pos)
			return
		}
		f := make(map[string]field, len(rec))
		for i, v := range rec {
			f[cols[i]] = field{value: v, pos: pos(r.FieldPos(i))}
		}
		b.add(f["term"].pos, f)
	}
}

func (b *builder) csvError(err error, pos func(line, col int) Pos) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		b.errorf(pos(max(pe.Line, 1), max(pe.Column, 1)), "%v", pe.Err)
		return
	}
	b.errorf(Pos{File: b.name, Line: 1, Col: 1}, "%v", err)
}

// readYAML reads a YAML lexicon: a list of mappings of scalars.
func (b *builder) readYAML(src []byte) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		p, msg := yamlError(b.name, err)
		b.errorf(p, "invalid YAML: %s", msg)
		return
	}
	if len(doc.Content) == 0 {
		return // an empty lexicon
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		b.errorf(b.at(list), "a YAML lexicon is a list of entries (- term: ..., spoken: ...)")
		return
	}
	for _, item := range list.Content {
		if b.full {
			return
		}
		if item.Kind != yaml.MappingNode {
			b.errorf(b.at(item), "an entry is a mapping with term and spoken")
			continue
		}
		f := map[string]field{}
		keys := map[string]bool{}
		ok := true
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			keys[k.Value] = true
			switch {
			case k.Kind != yaml.ScalarNode || !slices.Contains(columns, k.Value):
				b.errorf(b.at(k), "unknown key %q (keys: %s)", k.Value, strings.Join(columns, ", "))
				ok = false
			case v.Kind != yaml.ScalarNode:
				b.errorf(b.at(v), "%s must be a string", k.Value)
				ok = false
			default:
				if _, dup := f[k.Value]; dup {
					b.errorf(b.at(k), "key %s appears twice", k.Value)
					ok = false
				}
				val := v.Value
				if v.Tag == "!!null" {
					val = ""
				}
				f[k.Value] = field{value: val, pos: b.at(v)}
			}
		}
		for _, need := range []string{"term", "spoken"} {
			if !keys[need] {
				b.errorf(b.at(item), "entry has no %s", need)
				ok = false
			}
		}
		if ok {
			b.add(b.at(item), f)
		}
	}
}

func (b *builder) at(n *yaml.Node) Pos { return Pos{File: b.name, Line: n.Line, Col: n.Column} }

// yamlLineRE finds the line yaml.v3 names in its errors
// ("yaml: line 3: mapping values are not allowed in this context").
var yamlLineRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlError returns where and what a yaml.v3 error says.
func yamlError(file string, err error) (Pos, string) {
	p := Pos{File: file, Line: 1, Col: 1}
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			p.Line, _ = strconv.Atoi(m[1])
		}
		msg = msg[len(m[0]):]
	}
	return p, msg
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// bytePos is the place of byte off of src.
func bytePos(file string, src []byte, off int) Pos {
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return Pos{File: file, Line: line, Col: utf8.RuneCount(src[start:off]) + 1}
}
