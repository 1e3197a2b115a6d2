package manifest

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/state"
)

// Default bit rates of a package's files: AAC at 64 kbps is what
// audiobook stores deliver speech in; MP3 at 192 kbps is ACX's least.
const (
	DefaultM4BBitrate = 64000
	DefaultMP3Bitrate = 192000
	// DefaultPackageProfile is the profile a package's chapters are
	// mastered to when it names none.
	DefaultPackageProfile = "acx"
)

// bookLanguage is the shape of a BCP 47 language tag (hi-IN, en, zh-Hant-TW).
var bookLanguage = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// packages expands the packages: block, in name order, after the
// syntheses its chapters name.
func (x *expander) packages() {
	for i, name := range x.raw.sortedNames("packages") {
		b := x.raw.Blocks["packages"][name]
		if i == MaxPackages {
			x.ds.Errorf(b.Pos(), "package %q is past the %d packages a manifest may declare", name, MaxPackages).
				WithHint("split the books into several manifest directories")
			return
		}
		if x.raw.isBroken("packages", name) {
			continue
		}
		if p := x.pkg(b); p != nil {
			x.m.Packages = append(x.m.Packages, p)
		}
	}
}

// pkg builds one package; nil when one of its values is refused
// (reported).
func (x *expander) pkg(b *Block) *Package {
	fs := fieldsOf(b.File, b.Node)
	n := len(fs)
	if x.raw.dropBroken("packages", b.Name, fs); len(fs) < n {
		return nil // a field the schema refused (reported): the rest would only follow from it
	}
	sc := x.scope()
	x.failed = false
	p := &Package{Name: b.Name, Address: Address(KindPackage, b.Name, "", false), Pos: b.Pos(), Fields: fieldPositions(fs)}
	for _, sub := range []string{"m4b", "mp3"} {
		subPositions(p.Fields, sub, fs[sub])
	}
	p.Meta = x.bookMeta(b, fs, sc)
	p.Cover = x.bookCover(fs["cover"], sc)
	p.Profile = deliver.Builtin(DefaultPackageProfile)
	if f := fs["profile"]; f != nil {
		if name, _, ok := x.str(f, sc); ok {
			p.Profile = x.profileNamed(name, f.Pos(), "profile")
		}
	}
	p.Chapters = x.chapters(b, fs["chapters"], sc)
	p.M4B = x.bookFile(p, fs["m4b"], sc, deliver.CodecAAC, DefaultM4BBitrate, ".m4b", ".m4a")
	p.MP3 = x.bookFile(p, fs["mp3"], sc, deliver.CodecMP3, DefaultMP3Bitrate, ".mp3")
	if f := fs["chapters_json"]; f != nil {
		if o, _, ok := x.str(f, sc); ok && x.bookExtension(f.Pos(), "chapters_json", o, ".json") {
			p.ChaptersJSON = cleanRel(o)
		}
	}
	if fs["m4b"] == nil && fs["mp3"] == nil {
		x.failed = true
		x.ds.Errorf(b.Pos(), "package %q writes no book: it has neither m4b: nor mp3:", b.Name).
			WithHint("set m4b: build/%s.m4b, mp3: build/%s.mp3, or both", b.Name, b.Name)
	}
	if x.failed {
		return nil
	}
	return p
}

// bookMeta evaluates what a package says about its book; the title is
// required.
func (x *expander) bookMeta(b *Block, fs map[string]*field, sc *scope) BookMeta {
	if fs["title"] == nil || isNull(fs["title"].Val) {
		x.failed = true
		x.ds.Errorf(b.Pos(), "package %q has no title", b.Name).WithHint("set title: to the book's title")
	}
	return BookMeta{
		Title:    x.bookText(fs["title"], sc),
		Author:   x.bookText(fs["author"], sc),
		Narrator: x.bookText(fs["narrator"], sc),
		Year:     x.bookYear(fs["year"], sc),
		Language: x.bookLang(fs["language"], sc),
	}
}

// bookText evaluates a title, author, narrator or chapter title: not
// empty, at most MaxTitleChars characters, no control characters.
func (x *expander) bookText(f *field, sc *scope) string {
	s, _, ok := x.str(f, sc)
	if !ok {
		return ""
	}
	msg := ""
	switch n := utf8.RuneCountInString(s); {
	case strings.TrimSpace(s) == "":
		msg = "is empty"
	case n > MaxTitleChars:
		msg = fmt.Sprintf("is %s characters long, over %d, the limit for a title or name", numfmt.Thousands(n), MaxTitleChars)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		msg = "holds a control character (a line break, a tab, ...)"
	default:
		return s
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "%s %s", f.Name, msg)
	return ""
}

// bookYear evaluates year: a year from 1 to 9999.
func (x *expander) bookYear(f *field, sc *scope) int {
	v, ok := x.integer(f, sc)
	if !ok {
		return 0
	}
	if v < 1 || v > 9999 {
		x.failed = true
		x.ds.Errorf(f.Pos(), "year %d is not a year from 1 to 9999", v)
		return 0
	}
	return int(v)
}

// bookLang evaluates language: a BCP 47 tag.
func (x *expander) bookLang(f *field, sc *scope) string {
	s, _, ok := x.str(f, sc)
	if !ok {
		return ""
	}
	if !bookLanguage.MatchString(s) {
		x.failed = true
		x.ds.Errorf(f.Pos(), "language %q is not a BCP 47 language tag", s).WithHint("for example hi-IN or en")
		return ""
	}
	return s
}

// bookCover reads cover: a JPEG or PNG file inside the manifest
// directory, at most MaxCoverBytes, checked as text_file and lexicon are
// (inputRel, owned.Root.OpenInput) and bound into Manifest.Hash.
func (x *expander) bookCover(f *field, sc *scope) string {
	p, _, ok := x.str(f, sc)
	if !ok {
		return ""
	}
	rel, ok := x.inputRel(f, "cover", p)
	if !ok {
		return ""
	}
	src, err := x.raw.readInput(rel, MaxCoverBytes)
	msg := ""
	switch {
	case err != nil:
		msg = errCause(err).Error()
	case len(src) > MaxCoverBytes:
		msg = fmt.Sprintf("larger than %s bytes (%s), the limit for a cover image", numfmt.Thousands(MaxCoverBytes), mib(MaxCoverBytes))
	case !bytes.HasPrefix(src, []byte("\xff\xd8\xff")) && !bytes.HasPrefix(src, []byte("\x89PNG\r\n\x1a\n")):
		msg = "not a JPEG or PNG image"
	default:
		if !x.covers[rel] {
			x.covers[rel] = true
			x.hashFiles = append(x.hashFiles, hashed{name: "cover:" + rel, data: src})
		}
		return rel
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "cover %q: %s", rel, msg).WithHint("name a JPEG or PNG image inside the manifest directory")
	return ""
}

// chapters evaluates chapters:: at least one and at most MaxChapters
// maps of synthesis (a declared synthesis's address) and title, no
// synthesis twice.
func (x *expander) chapters(b *Block, f *field, sc *scope) []Chapter {
	if f == nil || isNull(f.Val) || deref(f.Val).Kind == yaml.SequenceNode && len(deref(f.Val).Content) == 0 {
		at := b.Pos()
		if f != nil {
			at = f.Pos()
		}
		x.failed = true
		x.ds.Errorf(at, "package %q has no chapters", b.Name).
			WithHint("list them in order: chapters: [{ synthesis: synthesis.NAME, title: TITLE }, ...]")
		return nil
	}
	n := deref(f.Val)
	if n.Kind != yaml.SequenceNode {
		x.failed = true
		x.ds.Errorf(f.Pos(), "chapters: want a list of {synthesis, title}")
		return nil
	}
	var out []Chapter
	seen := map[string]int{}
	for i, it := range n.Content {
		if i == MaxChapters {
			x.failed = true
			x.ds.Errorf(nodePos(f.File, deref(it)), "chapter %d is past the %s chapters a package may have", i+1, numfmt.Thousands(MaxChapters)).
				WithHint("split the book into volumes, one package each")
			break
		}
		c, ok := x.chapter(f.File, deref(it), sc)
		if !ok {
			continue
		}
		if prev, dup := seen[c.Synthesis]; dup {
			x.failed = true
			x.ds.Errorf(c.Pos, "chapter %s is already chapter %d of package %q", c.Synthesis, prev, b.Name)
			continue
		}
		seen[c.Synthesis] = i + 1
		out = append(out, c)
	}
	return out
}

// chapter evaluates one chapter.
func (x *expander) chapter(file string, n *yaml.Node, sc *scope) (Chapter, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		x.failed = true
		x.ds.Errorf(nodePos(file, n), "chapter: want a map of synthesis and title")
		return Chapter{}, false
	}
	fs := fieldsOf(file, n)
	for _, req := range []string{"synthesis", "title"} {
		if fs[req] == nil || isNull(fs[req].Val) {
			x.failed = true
			x.ds.Errorf(nodePos(file, n), "chapter has no %s", req).WithHint("write { synthesis: synthesis.NAME, title: TITLE }")
			return Chapter{}, false
		}
	}
	addr, _, ok := x.str(fs["synthesis"], sc)
	if !ok {
		return Chapter{}, false
	}
	c := Chapter{Synthesis: addr, Pos: valuePos(file, fs["synthesis"].Val)}
	if !x.knownSynthesis(addr, c.Pos) {
		return Chapter{}, false
	}
	if c.Title = x.bookText(fs["title"], sc); c.Title == "" {
		return Chapter{}, false
	}
	return c, true
}

// knownSynthesis reports whether addr is a declared synthesis instance;
// if not, it says so at pos, unless the block it names was refused
// (reported already).
func (x *expander) knownSynthesis(addr string, pos Pos) bool {
	if x.synthByAddr == nil { // made when a package first asks
		x.synthByAddr = make(map[string]*Synthesis, len(x.m.Syntheses))
		for _, s := range x.m.Syntheses {
			x.synthByAddr[s.Address] = s
		}
	}
	if x.synthByAddr[addr] != nil {
		return true
	}
	x.failed = true
	a, err := state.ParseAddress(addr)
	switch {
	case err == nil && a.Kind == string(KindSynthesis) && (x.synthDropped[a.Name] || x.synthesesOver):
		return false // its block or instance was refused, and reported
	case err != nil || a.Kind != string(KindSynthesis):
		x.ds.Errorf(pos, "chapter synthesis %q is not a synthesis's address", addr).
			WithHint(`write synthesis.NAME, or synthesis.NAME["KEY"] for an instance of a for_each block`)
		return false
	}
	d := x.ds.Errorf(pos, "chapter synthesis %s is not declared", addr)
	var near []string
	for _, s := range x.m.Syntheses {
		if s.Name == a.Name {
			near = append(near, s.Address)
		}
	}
	switch {
	case len(near) > 0 && !a.HasKey:
		d.WithHint("synthesis.%s is a for_each block: name one of its instances, as %s", a.Name, near[0])
	case len(near) > 0:
		if sg := x.sg.Suggest(addr, near); sg != "" {
			d.WithHint("did you mean %s?", sg)
		}
	default:
		if sg := x.sg.Suggest(a.Name, x.raw.sortedNames("syntheses")); sg != "" {
			d.WithHint("did you mean synthesis.%s?", sg)
		} else {
			d.WithHint("declare it under syntheses:")
		}
	}
	return false
}

// bookFile evaluates m4b: or mp3:: a path, or a map of output and
// bitrate; the bit rate is checked as deliver.Validate checks a
// profile's (the package profile's rate and channels, the file's codec).
func (x *expander) bookFile(p *Package, f *field, sc *scope, codec string, defRate int, exts ...string) *BookFile {
	if f == nil || isNull(f.Val) {
		return nil
	}
	bf := &BookFile{Bitrate: defRate}
	out, rate := f, (*field)(nil)
	if deref(f.Val).Kind == yaml.MappingNode {
		fs := fieldsOf(f.File, deref(f.Val))
		if out = fs["output"]; out == nil || isNull(out.Val) {
			x.failed = true
			x.ds.Errorf(f.Pos(), "%s: has no output", f.Name).WithHint("write %s: { output: PATH, bitrate: %dk }", f.Name, defRate/1000)
			return nil
		}
		out.Name = f.Name + ".output"
		if rate = fs["bitrate"]; rate != nil {
			rate.Name = f.Name + ".bitrate"
			if v, ok := x.bitrate(rate, sc); ok {
				bf.Bitrate = v
			}
		}
	}
	o, _, ok := x.str(out, sc)
	if !ok || !x.bookExtension(out.Pos(), f.Name, o, exts...) {
		return nil
	}
	bf.Output = cleanRel(o)
	if p.Profile != nil {
		check := BookProfile(p.Profile, codec, bf.Bitrate)
		at := out.Pos()
		if rate != nil {
			at = rate.Pos()
		}
		for _, pr := range deliver.Validate(check) {
			x.failed = true
			x.ds.Errorf(at, "%s: %s: %s", f.Name, strings.TrimPrefix(pr.Field, "encoding."), pr.Message)
		}
	}
	return bf
}

// bookExtension reports whether a package file's path has one of exts;
// if not, it says so at pos.
func (x *expander) bookExtension(pos Pos, what, p string, exts ...string) bool {
	if ext := strings.ToLower(path.Ext(p)); slices.Contains(exts, ext) {
		return true
	}
	x.failed = true
	x.ds.Errorf(pos, "%s: output %q is not a %s file", what, p, strings.Join(exts, " or ")).
		WithHint("name it %s", strings.TrimSuffix(p, path.Ext(p))+exts[0])
	return false
}

// BookProfile is the profile a package's book file of codec is made to
// at bitrate (bits per second): the package's profile base with that
// file's encoding, at base's rate and channels: AAC in MP4 at an average
// bit rate (deliver.CodecAAC, the M4B; AAC has no constant one), or CBR
// MP3 (deliver.CodecMP3).
func BookProfile(base *deliver.Profile, codec string, bitrate int) *deliver.Profile {
	b := base.Clone()
	e := deliver.Encoding{Codec: codec, SampleRate: base.Encoding.SampleRate, Channels: base.Encoding.Channels,
		BitrateMode: deliver.CBR, Bitrate: bitrate}
	switch codec {
	case deliver.CodecAAC:
		e.Container, e.BitrateMode = deliver.ContainerMP4, deliver.VBR
	case deliver.CodecMP3:
		e.Container = deliver.ContainerMP3
	}
	b.Encoding = e
	return b
}
