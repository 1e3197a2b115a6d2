package narration

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// PLSNamespace is the namespace of a W3C Pronunciation Lexicon
// Specification (PLS) 1.0 document.
const PLSNamespace = "http://www.w3.org/2005/01/pronunciation-lexicon"

// MaxPLSDepth is the deepest a PLS lexicon's elements nest: 32. A lexicon
// needs three (lexicon, lexeme, grapheme) and its metadata a few more; the
// bound keeps a hostile file from costing memory for each level.
const MaxPLSDepth = 32

// xmlNamespace is the namespace of the xml: prefix (xml:lang, xml:base).
const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// plsReader reads a PLS lexicon token by token into a builder.
type plsReader struct {
	b        *builder
	src      []byte
	d        *xml.Decoder
	cur      posCursor
	depth    int
	lastOff  int    // where the last token read starts
	failed   bool   // a problem ended the reading (reported)
	encoding string // another encoding the file declares
	lang     string // the lexicon's xml:lang, when it is a valid tag
	langPos  Pos
	alphabet string
}

// readPLS reads a W3C PLS 1.0 lexicon (see ParseLexicon).
func (b *builder) readPLS(src []byte) {
	r := &plsReader{b: b, src: src, cur: posCursor{name: b.name, src: src, line: 1, col: 1}}
	r.d = xml.NewDecoder(bytes.NewReader(src))
	r.d.CharsetReader = func(label string, _ io.Reader) (io.Reader, error) {
		r.encoding = label
		return nil, errors.New("not UTF-8")
	}
	start, at, ok := r.root()
	if !ok {
		return
	}
	if r.lexicon(start, at) {
		r.trailer()
	}
}

// next returns the next token and where it starts; false at the end of
// the file or after a problem that ends the reading (reported).
func (r *plsReader) next() (xml.Token, Pos, bool) {
	off := int(r.d.InputOffset())
	tok, err := r.d.Token()
	if errors.Is(err, io.EOF) && r.depth > 0 {
		err = errors.New("unexpected end of file")
	}
	if errors.Is(err, io.EOF) {
		return nil, r.cur.at(len(r.src)), false
	}
	r.lastOff = off
	if err != nil {
		r.invalid(err)
		return nil, Pos{}, false
	}
	at := r.cur.at(off)
	switch t := tok.(type) {
	case xml.StartElement:
		if r.depth++; r.depth > MaxPLSDepth {
			r.b.errorf(at, "elements nest deeper than %d levels, the limit for a PLS lexicon (MaxPLSDepth)", MaxPLSDepth)
			r.failed = true
			return nil, Pos{}, false
		}
	case xml.EndElement:
		r.depth--
	case xml.Directive:
		word, _, _ := strings.Cut(strings.TrimSpace(string(t)), " ")
		r.b.errorf(at, "<!%s> is not allowed: a PLS lexicon is read without a DTD or entity declarations", word)
		r.failed = true
		return nil, Pos{}, false
	}
	return tok, at, true
}

// invalid reports the decoder's error err where it stopped.
func (r *plsReader) invalid(err error) {
	r.failed = true
	msg := err.Error()
	var se *xml.SyntaxError
	switch {
	case r.encoding != "":
		msg = fmt.Sprintf("encoding %q declared: a lexicon is read as UTF-8", r.encoding)
	case errors.As(err, &se):
		msg = se.Msg
	}
	r.b.errorf(r.cur.at(int(r.d.InputOffset())), "invalid XML: %s", strings.TrimPrefix(msg, "xml: "))
}

// root skips the prolog (the XML declaration, comments) and returns the
// root element.
func (r *plsReader) root() (xml.StartElement, Pos, bool) {
	for {
		tok, at, ok := r.next()
		if !ok {
			if !r.failed {
				r.b.errorf(at, "no <lexicon> element: a PLS lexicon is one <lexicon> in the namespace %s", PLSNamespace)
			}
			return xml.StartElement{}, Pos{}, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t, at, true
		case xml.CharData:
			if !isBlank(t) {
				r.b.errorf(r.textPos(t), "text before the <lexicon> element")
				return xml.StartElement{}, Pos{}, false
			}
		}
	}
}

// trailer checks that nothing but comments follows the root element.
func (r *plsReader) trailer() {
	for {
		tok, at, ok := r.next()
		if !ok {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.b.errorf(at, "element <%s> after </lexicon>: a PLS lexicon has one root element", t.Name.Local)
			return
		case xml.CharData:
			if !isBlank(t) {
				r.b.errorf(r.textPos(t), "text after </lexicon>")
				return
			}
		}
	}
}

// lexicon reads the root element and its lexemes; false when reading
// stopped before its end.
func (r *plsReader) lexicon(start xml.StartElement, at Pos) bool {
	switch {
	case start.Name.Local != "lexicon":
		r.b.errorf(at, "the root element is <%s>, not a PLS <lexicon>", start.Name.Local)
		return false
	case start.Name.Space != PLSNamespace:
		r.b.errorf(at, "<lexicon> is in %s, not in the PLS 1.0 namespace %s", namespaceName(start.Name.Space), PLSNamespace)
		return false
	}
	if !r.lexiconAttrs(start, at) {
		return false
	}
	for {
		tok, tat, ok := r.next()
		if !ok {
			return false
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return true
		case xml.CharData:
			if !isBlank(t) {
				r.b.errorf(r.textPos(t), "text %q in <lexicon> outside a <lexeme>", clip(string(t)))
			}
		case xml.StartElement:
			if !r.lexiconChild(t, tat) {
				return false
			}
		}
	}
}

// lexiconChild reads one element of <lexicon>: a lexeme, or metadata
// (skipped).
func (r *plsReader) lexiconChild(t xml.StartElement, at Pos) bool {
	switch {
	case t.Name.Space == PLSNamespace && t.Name.Local == "lexeme":
		return r.lexeme(at)
	case t.Name.Space == PLSNamespace && (t.Name.Local == "meta" || t.Name.Local == "metadata"):
	default:
		r.b.errorf(at, "<%s> is not an element of a PLS <lexicon> (meta, metadata, lexeme)", t.Name.Local)
	}
	return r.skip()
}

// lexiconAttrs reads version, xml:lang and alphabet; false when the
// lexicon cannot be read (a wrong version).
func (r *plsReader) lexiconAttrs(start xml.StartElement, at Pos) bool {
	var version, lang *xml.Attr
	for i, a := range start.Attr {
		switch {
		case a.Name.Space == "" && a.Name.Local == "version":
			version = &start.Attr[i]
		case a.Name.Space == xmlNamespace && a.Name.Local == "lang":
			lang = &start.Attr[i]
		case a.Name.Space == "" && a.Name.Local == "alphabet":
			r.alphabet = a.Value
		}
	}
	switch {
	case version == nil:
		r.b.errorf(at, "<lexicon> has no version: a PLS 1.0 lexicon says version=\"1.0\"")
		return false
	case version.Value != "1.0":
		r.b.errorf(r.attrPos(at, "version"), "version %q: voxform reads PLS 1.0 lexicons (version=\"1.0\")", version.Value)
		return false
	case lang == nil:
		r.b.errorf(at, "<lexicon> has no xml:lang: a PLS lexicon names the language of its entries (xml:lang=\"hi-IN\")")
	case !languageRE.MatchString(strings.TrimSpace(lang.Value)):
		r.b.errorf(r.attrPos(at, "xml:lang"), "xml:lang %q is not a BCP-47 tag like hi-IN or en-IN", lang.Value)
	default:
		r.lang, r.langPos = strings.TrimSpace(lang.Value), r.attrPos(at, "xml:lang")
		r.b.lang, r.b.langPos = r.lang, r.langPos
	}
	return true
}

// attrPos is where the attribute written name is in the start tag just
// read (at at), or at itself when it cannot be told.
func (r *plsReader) attrPos(at Pos, name string) Pos {
	tag := r.src[r.lastOff:min(int(r.d.InputOffset()), len(r.src))]
	for i := 0; ; {
		k := bytes.Index(tag[i:], []byte(name))
		if k < 0 {
			return at
		}
		k += i
		rest := bytes.TrimLeft(tag[k+len(name):], " \t\r\n")
		if k > 0 && isXMLSpace(tag[k-1]) && len(rest) > 0 && rest[0] == '=' {
			return r.cur.at(r.lastOff + k)
		}
		i = k + len(name)
	}
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// textPos is where the text t, the token just read, stops being white
// space.
func (r *plsReader) textPos(t xml.CharData) Pos {
	return r.cur.at(r.lastOff + len(t) - len(bytes.TrimLeft(t, " \t\r\n")))
}

// skip reads to the end of the element just started.
func (r *plsReader) skip() bool {
	for depth := 1; depth > 0; {
		tok, _, ok := r.next()
		if !ok {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return true
}

// lexemeParts is what one <lexeme> holds.
type lexemeParts struct {
	graphemes []field
	alias     *field // the preferred alias
	preferred bool   // alias has prefer="true"
	phoneme   *field // the first phoneme, with its alphabet as value
}

// lexeme reads one <lexeme> (started at at) and adds an entry for each of
// its graphemes with its preferred alias.
func (r *plsReader) lexeme(at Pos) bool {
	var p lexemeParts
	for {
		tok, tat, ok := r.next()
		if !ok {
			return false
		}
		switch t := tok.(type) {
		case xml.EndElement:
			r.addLexeme(at, &p)
			return true
		case xml.CharData:
			if !isBlank(t) {
				r.b.errorf(r.textPos(t), "text %q in <lexeme> outside its elements", clip(string(t)))
			}
		case xml.StartElement:
			if !r.lexemeChild(t, tat, &p) {
				return false
			}
		}
	}
}

// lexemeChild reads one element of a lexeme into p.
func (r *plsReader) lexemeChild(t xml.StartElement, at Pos, p *lexemeParts) bool {
	if t.Name.Space != PLSNamespace {
		r.b.errorf(at, "<%s> is not an element of a PLS <lexeme> (grapheme, alias, phoneme, example)", t.Name.Local)
		return r.skip()
	}
	switch t.Name.Local {
	case "grapheme":
		text, ok := r.text("grapheme")
		p.graphemes = append(p.graphemes, field{value: text, pos: at})
		return ok
	case "alias":
		text, ok := r.text("alias")
		prefer := attr(t, "prefer") == "true"
		if p.alias == nil || prefer && !p.preferred {
			p.alias, p.preferred = &field{value: text, pos: at}, prefer
		}
		return ok
	case "phoneme":
		if p.phoneme == nil {
			alphabet := attr(t, "alphabet")
			if alphabet == "" {
				alphabet = r.alphabet
			}
			p.phoneme = &field{value: alphabet, pos: at}
		}
	case "example":
	default:
		r.b.errorf(at, "<%s> is not an element of a PLS <lexeme> (grapheme, alias, phoneme, example)", t.Name.Local)
	}
	return r.skip()
}

// addLexeme adds the entries of a lexeme read, or reports why it has none.
func (r *plsReader) addLexeme(at Pos, p *lexemeParts) {
	switch {
	case len(p.graphemes) == 0:
		r.b.errorf(at, "<lexeme> has no <grapheme>: a lexeme names the text it applies to")
		return
	case p.alias == nil && p.phoneme == nil:
		r.b.errorf(at, "<lexeme> has neither an <alias> nor a <phoneme>")
		return
	case p.alias == nil:
		alphabet := p.phoneme.value
		if alphabet == "" {
			alphabet = "no alphabet"
		}
		r.b.warns = append(r.b.warns, &Error{Pos: at, Msg: fmt.Sprintf(
			"lexeme %q has only a <phoneme> (%s), and the service takes no phonemes: it is not applied",
			strings.Join(strings.Fields(p.graphemes[0].value), " "), alphabet)})
		return
	}
	for _, g := range p.graphemes {
		f := map[string]field{"term": g, "spoken": *p.alias}
		if r.lang != "" {
			f["language"] = field{value: r.lang, pos: r.langPos}
		}
		r.b.add(g.pos, f)
	}
}

// text reads the text of an element just started; elements inside it are
// reported.
func (r *plsReader) text(name string) (string, bool) {
	var sb strings.Builder
	for {
		tok, at, ok := r.next()
		if !ok {
			return "", false
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return sb.String(), true
		case xml.CharData:
			sb.Write(t)
		case xml.StartElement:
			r.b.errorf(at, "<%s> in <%s>: a %s is text only", t.Name.Local, name, name)
			if !r.skip() {
				return "", false
			}
		}
	}
}

// attr is the value of the attribute local (in no namespace) of t.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func namespaceName(ns string) string {
	if ns == "" {
		return "no namespace"
	}
	return fmt.Sprintf("the namespace %q", ns)
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// clip shortens a quoted text for a message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "..."
	}
	return s
}

// posCursor turns byte offsets into positions, moving forward through the
// file, so that positions for every token of a file cost one pass over it.
type posCursor struct {
	name           string
	src            []byte
	off, line, col int
}

// at is the position of byte off.
func (c *posCursor) at(off int) Pos {
	off = min(off, len(c.src))
	if off < c.off {
		c.off, c.line, c.col = 0, 1, 1
	}
	for c.off < off {
		r, w := utf8.DecodeRune(c.src[c.off:])
		if r == '\n' {
			c.line, c.col = c.line+1, 1
		} else {
			c.col++
		}
		c.off += w
	}
	return Pos{File: c.name, Line: c.line, Col: c.col}
}
