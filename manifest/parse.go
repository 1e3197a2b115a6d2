package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/voxform/voxform/owned"
	"go.yaml.in/yaml/v3"
)

var errNotIndex = errors.New("not an index")

// Sections are the top-level keys of a manifest, in documented order.
var Sections = []string{"version", "service", "cache", "backend", "catalog", "variables", "defaults", "budget", "loudness",
	"voices", "embeddings", "syntheses", "transcriptions", "delivery_profiles", "packages"}

// namedSections hold named blocks that are merged across files by name.
var namedSections = map[string]bool{"variables": true, "voices": true, "embeddings": true,
	"syntheses": true, "transcriptions": true, "delivery_profiles": true, "packages": true}

// File is one parsed manifest file; a file may hold several YAML documents.
type File struct {
	Name string // relative to the manifest directory
	Src  []byte
	Docs []*yaml.Node // document nodes, aliases unresolved
}

// Block is one named entry of a named section (a voice, a synthesis, a
// variable), or a singleton section (service, catalog, ...).
type Block struct {
	Section string
	Name    string // empty for singleton sections
	File    string
	Key     *yaml.Node // the name's node (or the section key)
	Node    *yaml.Node // the value, aliases resolved
}

// Pos is the position of the block's name.
func (b *Block) Pos() Pos { return nodePos(b.File, b.Key) }

// Raw is a manifest directory parsed and merged but not yet expanded.
type Raw struct {
	Dir    string
	Files  []*File
	Blocks map[string]map[string]*Block // section -> name -> block ("" for singletons)
	broken map[string]bool
	// data holds the data and variable files beside the manifests that
	// were parsed with them without a problem (see dataDocument).
	data map[string]*File
	// root reads every input, checked (owned.Root.OpenInput); opened by
	// Parse, or on first use.
	root *owned.Root
}

// inputs is the manifest directory opened for reading inputs.
func (r *Raw) inputs() (*owned.Root, error) {
	if r.root == nil {
		root, err := owned.Open(r.Dir)
		if err != nil {
			return nil, err
		}
		r.root = root
	}
	return r.root, nil
}

// closeInputs releases the directory handle inputs opened; a later read
// opens it again.
func (r *Raw) closeInputs() {
	if r.root != nil {
		r.root.Close()
		r.root = nil
	}
}

// readInput reads at most limit+1 bytes of the input name, as the
// manifest or the command line names it (owned.Root.OpenInput).
func (r *Raw) readInput(name string, limit int64) ([]byte, error) {
	root, err := r.inputs()
	if err != nil {
		return nil, err
	}
	return root.ReadInput(filepath.FromSlash(name), limit)
}

// MarkBroken records that the value at a JSON pointer of a file failed
// schema validation, so that expansion skips it (a whole block, or one
// field of a block) instead of reporting its problems a second time.
func (r *Raw) MarkBroken(pointer string) {
	toks := SplitPointer(pointer)
	if len(toks) == 0 || toks[0] == "" {
		r.broken["*"] = true
		return
	}
	keep := 2 // singleton section and field
	if namedSections[toks[0]] {
		keep = 3 // section, name and field
	}
	if len(toks) > keep {
		toks = toks[:keep]
	}
	r.broken[strings.Join(toks, "/")] = true
}

// isBroken reports whether a whole block (name "" for singletons) is broken.
func (r *Raw) isBroken(section, name string) bool {
	if r.broken["*"] || r.broken[section] {
		return true
	}
	return name != "" && r.broken[section+"/"+name]
}

// brokenField reports whether one field of a block is broken.
func (r *Raw) brokenField(section, name, field string) bool {
	if name == "" {
		return r.broken[section+"/"+field]
	}
	return r.broken[section+"/"+name+"/"+field]
}

// dropBroken removes a block's broken fields from fs.
func (r *Raw) dropBroken(section, name string, fs map[string]*field) {
	if len(r.broken) == 0 {
		return
	}
	for f := range fs {
		if r.brokenField(section, name, f) {
			delete(fs, f)
		}
	}
}

// ManifestFiles lists the *.yaml and *.yml files of dir, sorted.
func ManifestFiles(dir string) ([]string, error) {
	names, _, err := listYAML(dir)
	return names, err
}

// listYAML lists the *.yaml and *.yml files of dir, sorted, and which of
// them are symbolic links: a link is never read as a manifest.
func listYAML(dir string) ([]string, map[string]bool, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest directory: %w", err)
	}
	var names []string
	links := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") {
			continue
		}
		if ext := filepath.Ext(n); ext == ".yaml" || ext == ".yml" {
			names = append(names, n)
			if e.Type()&os.ModeSymlink != 0 {
				links[n] = true
			}
		}
	}
	sort.Strings(names)
	return names, links, nil
}

// Parse reads and merges every manifest file of dir. Problems are returned
// as diagnostics; the Raw is usable (possibly partial) whenever it is non-nil.
func Parse(dir string, opts LoadOptions) (*Raw, Diagnostics) {
	var ds Diagnostics
	abs, err := filepath.Abs(dir)
	if err != nil {
		ds.Errorf(Pos{File: dir}, "manifest directory %s: %v", dir, err)
		return nil, ds
	}
	names, links, err := listYAML(abs)
	if err != nil {
		ds.Errorf(Pos{File: dir}, "%v", err)
		return nil, ds
	}
	if len(names) == 0 {
		ds.Errorf(Pos{File: dir}, "no manifest files (*.yaml, *.yml) in %s", dir).
			WithHint("run 'voxform init' to write a starter manifest")
	}
	root, err := owned.Open(abs)
	if err != nil {
		ds.Errorf(Pos{File: dir}, "%v", err)
		return nil, ds
	}
	srcs := readManifests(root, names, links, &ds)
	files := parseAll(abs, names, srcs, links, opts)
	var r *Raw
	var pds Diagnostics
	var skip map[string]bool
	for reparsed := true; reparsed; {
		r, pds = merge(abs, files)
		skip = r.dataFiles(opts, names)
		reparsed = false
		for i, p := range files {
			if p.unparsed && !skip[p.f.Name] {
				// Named as data by a block that a block of the same name
				// in another file hides: a manifest after all (a link
				// is refused as one).
				files[i], reparsed = parseManifest(names[i], srcs[i], links[names[i]]), true
			}
		}
	}
	if len(skip) > 0 {
		// A YAML data or variable file beside the manifests is not a
		// manifest: merge again without it. Each file is parsed once; a
		// data file parsed without a problem is kept for the expansion.
		var kept []parsedFile
		data := map[string]*File{}
		for _, p := range files {
			if !skip[p.f.Name] {
				kept = append(kept, p)
			} else if len(p.ds) == 0 && len(p.f.Docs) > 0 {
				data[p.f.Name] = p.f
			}
		}
		r, pds = merge(abs, kept)
		r.data = data
	}
	r.root = root
	ds.Append(pds)
	return r, ds
}

// readManifests reads the manifest files of root (a symbolic link is not
// read: it is data, read as such, or refused as a manifest). At most one
// byte over the limit is read: parseFile refuses it.
func readManifests(root *owned.Root, names []string, links map[string]bool, ds *Diagnostics) [][]byte {
	srcs := make([][]byte, len(names))
	for i, n := range names {
		if links[n] {
			continue
		}
		b, err := root.ReadInput(n, MaxManifestBytes)
		if err != nil {
			ds.Errorf(Pos{File: n}, "read %s: %v", n, errCause(err))
		}
		srcs[i] = b
	}
	return srcs
}

// parseManifest parses a manifest file, or refuses a symbolic link as one:
// a link may lead anywhere, and a manifest's parse errors quote its lines.
func parseManifest(name string, src []byte, link bool) parsedFile {
	if !link {
		return parseFile(name, src)
	}
	p := parsedFile{f: &File{Name: name}}
	p.ds.Errorf(Pos{File: name}, "manifest file %s is a symbolic link; voxform reads only regular files as manifests", name).
		WithHint("copy the file into the manifest directory; a YAML file named by for_each, -var-file or lexicon is data and may be a link inside the manifest directory")
	return p
}

// parseAll parses the files of a manifest directory. The files no larger
// than a JSON or YAML data file may be are parsed first: a larger file
// they (or -var-file) name as data is not parsed as a manifest, since it
// is not one (it is refused as data, or read as a -var-file). Parsing a
// few MiB of YAML takes a second.
func parseAll(dir string, names []string, srcs [][]byte, links map[string]bool, opts LoadOptions) []parsedFile {
	files := make([]parsedFile, len(names))
	var small []parsedFile
	for i, n := range names {
		if links[n] {
			files[i] = parsedFile{f: &File{Name: n}, unparsed: true}
			continue
		}
		if len(srcs[i]) <= MaxDocumentDataBytes {
			files[i] = parseFile(n, srcs[i])
			small = append(small, files[i])
		}
	}
	r, _ := merge(dir, small)
	data := r.dataFiles(opts, names)
	for i, n := range names {
		switch {
		case links[n]:
		case len(srcs[i]) <= MaxDocumentDataBytes:
		case data[n]:
			files[i] = parsedFile{f: &File{Name: n, Src: srcs[i]}, unparsed: true}
		default:
			files[i] = parseFile(n, srcs[i])
		}
	}
	return files
}

// dataFiles returns the files (among names, in the manifest directory)
// named by a literal for_each, lexicon or text_file, or by -var-file:
// they are inputs, not manifests.
func (r *Raw) dataFiles(opts LoadOptions, names []string) map[string]bool {
	out := map[string]bool{}
	add := func(p string) {
		if name, ok := r.fileName(p); ok {
			out[name] = true
		}
	}
	for _, v := range opts.VarFiles {
		add(v)
	}
	literal := func(n *yaml.Node, field string) {
		if v := lookup(n, field); v != nil && v.Kind == yaml.ScalarNode && !strings.Contains(v.Value, "${") {
			add(v.Value)
		}
	}
	for _, b := range r.Blocks["syntheses"] {
		for _, field := range []string{"for_each", "lexicon", "text_file"} {
			literal(b.Node, field)
		}
	}
	if d := r.Blocks["defaults"][""]; d != nil {
		if s := lookup(d.Node, "synthesis"); s != nil {
			literal(s, "lexicon")
			literal(s, "text_file")
		}
	}
	for n := range out {
		if !slices.Contains(names, n) {
			delete(out, n)
		}
	}
	return out
}

// fileName returns the name a path (relative to the manifest directory,
// or absolute) has among the manifest directory's files, when it names one
// of them.
func (r *Raw) fileName(p string) (string, bool) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(r.Dir, p)
		if err != nil {
			return "", false
		}
		p = rel
	}
	p = filepath.Clean(p)
	return p, filepath.Dir(p) == "."
}

// dataDocument returns the first document of a data or variable file
// beside the manifests (path as named) when it was parsed with them without
// a problem and src still holds its bytes: such a file is not parsed again.
func (r *Raw) dataDocument(path string, src []byte) *yaml.Node {
	name, ok := r.fileName(path)
	if f := r.data[name]; ok && f != nil && bytes.Equal(f.Src, src) {
		return f.Docs[0]
	}
	return nil
}

// ParseSources is Parse over contents already read: names[i] holds srcs[i].
func ParseSources(dir string, names []string, srcs [][]byte) (*Raw, Diagnostics) {
	files := make([]parsedFile, len(names))
	for i, n := range names {
		files[i] = parseFile(n, srcs[i])
	}
	return merge(dir, files)
}

// parsedFile is a manifest file parsed, with the problems found in it;
// unparsed when it was left out as data (see parseAll).
type parsedFile struct {
	f        *File
	ds       Diagnostics
	unparsed bool
}

func parseFile(name string, src []byte) parsedFile {
	p := parsedFile{f: &File{Name: name, Src: src}}
	if !tooLarge(name, src, MaxManifestBytes, "manifest file", &p.ds) {
		p.f.Docs = parseDocs(p.f, &p.ds)
	}
	return p
}

// merge merges the documents of parsed files into a Raw.
func merge(dir string, files []parsedFile) (*Raw, Diagnostics) {
	var ds Diagnostics
	r := &Raw{Dir: dir, Blocks: map[string]map[string]*Block{}, broken: map[string]bool{}}
	for _, p := range files {
		ds.Append(p.ds)
		r.Files = append(r.Files, p.f)
		for _, doc := range p.f.Docs {
			r.mergeDoc(p.f, doc, &ds)
		}
	}
	return r, ds
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseDocs parses every YAML document of a file and checks each mapping
// for duplicate keys, which yaml.v3 leaves to the decoder. A document whose
// aliases reach too much (see MaxAliasNodes) is left out.
func parseDocs(f *File, ds *Diagnostics) []*yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(f.Src))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			msg, pos := err.Error(), Pos{File: f.Name, Line: 1, Col: 1}
			if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
				pos.Line = atoiOr(m[1], 1)
				msg = m[2]
				if line := offendingLine(f.Src, pos.Line); line > pos.Line {
					msg = fmt.Sprintf("%s (in the block that starts at line %d)", msg, pos.Line)
					pos.Line, pos.Col = line, indentOf(f.Src, line)+1
				}
			} else {
				msg = strings.TrimPrefix(msg, "yaml: ")
			}
			ds.Errorf(pos, "invalid YAML: %s", msg)
			return docs
		}
		if !checkAliases(f.Name, &doc, ds) {
			continue
		}
		checkDuplicateKeys(f.Name, &doc, ds, 0)
		docs = append(docs, &doc)
	}
	return docs
}

// offendingLine finds the line that makes a YAML syntax error: yaml.v3
// reports the line where the enclosing block starts, not the line that
// breaks it (an over-indented key on line 5 is reported at line 2). The
// first prefix of the file, line by line from the reported one, that fails
// to parse for another reason than ending early names it. The search is
// bounded (offendingScan lines, files up to offendingMaxBytes, and
// offendingParseBytes parsed in all: each prefix is parsed whole, and 400
// prefixes of a 256 KiB file took over a second); 0 when it finds nothing.
func offendingLine(src []byte, reported int) int {
	line, _ := offendingSearch(src, reported)
	return line
}

// offendingSearch is offendingLine, also returning how many bytes of
// prefixes it parsed.
func offendingSearch(src []byte, reported int) (line, parsed int) {
	if len(src) > offendingMaxBytes {
		return 0, 0
	}
	var ends []int // ends[k-1] is where line k ends, its newline included
	for i, c := range src {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(src) {
		ends = append(ends, len(src))
	}
	for k := max(reported, 1); k <= len(ends) && k <= reported+offendingScan; k++ {
		prefix := src[:ends[k-1]]
		if parsed+len(prefix) > offendingParseBytes {
			return 0, parsed
		}
		parsed += len(prefix)
		var n yaml.Node
		err := yaml.Unmarshal(prefix, &n)
		if err != nil && !strings.Contains(err.Error(), "end of stream") {
			return k, parsed
		}
	}
	return 0, parsed
}

const (
	offendingScan       = 400
	offendingMaxBytes   = 256 << 10
	offendingParseBytes = 4 << 20
)

// indentOf is the number of leading spaces of line (1-based) of src.
func indentOf(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	return len(l) - len(bytes.TrimLeft(l, " "))
}

func atoiOr(s string, def int) int {
	n, err := atoiStrict(s)
	if err != nil {
		return def
	}
	return n
}

// checkDuplicateKeys reports a key repeated in one mapping. Aliases are not
// followed (their targets are checked where they are defined).
func checkDuplicateKeys(file string, n *yaml.Node, ds *Diagnostics, depth int) {
	if n == nil || depth > 200 {
		return
	}
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && !isMergeKey(k) {
				if prev, dup := seen[k.Value]; dup {
					ds.Errorf(nodePos(file, k), "key %q is declared twice in one mapping (first at line %d)", k.Value, prev.Line)
				}
				seen[k.Value] = k
			}
		}
	}
	for _, c := range n.Content {
		checkDuplicateKeys(file, c, ds, depth+1)
	}
}

// mergeDoc adds the top-level sections of one document to r.
func (r *Raw) mergeDoc(f *File, doc *yaml.Node, ds *Diagnostics) {
	root := deref(doc)
	if root == nil || isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		return // the JSON Schema reports the type
	}
	for _, e := range entries(root) {
		sec := e.Key.Value
		val := deref(e.Val)
		if !knownSection(sec) {
			continue // the JSON Schema reports unknown fields
		}
		if r.Blocks[sec] == nil {
			r.Blocks[sec] = map[string]*Block{}
		}
		if !namedSections[sec] {
			if prev, dup := r.Blocks[sec][""]; dup {
				ds.Errorf(nodePos(f.Name, e.Key), "%s: is declared twice: here and at %s", sec, prev.Pos()).
					WithHint("keep one %s: block across all manifest files", sec)
				continue
			}
			r.Blocks[sec][""] = &Block{Section: sec, File: f.Name, Key: e.Key, Node: val}
			continue
		}
		for _, ne := range entries(val) {
			name := ne.Key.Value
			b := &Block{Section: sec, Name: name, File: f.Name, Key: ne.Key, Node: deref(ne.Val)}
			if prev, dup := r.Blocks[sec][name]; dup {
				if prev.File != f.Name || prev.Key.Line != ne.Key.Line {
					ds.Errorf(b.Pos(), "%s %q is declared twice: here and at %s", singular(sec), name, prev.Pos()).
						WithHint("names must be unique across all manifest files")
				}
				continue
			}
			r.Blocks[sec][name] = b
		}
	}
}

func knownSection(s string) bool {
	for _, k := range Sections {
		if k == s {
			return true
		}
	}
	return false
}

func singular(section string) string {
	switch section {
	case "variables":
		return "variable"
	case "voices":
		return "voice"
	case "embeddings":
		return "embedding"
	case "syntheses":
		return "synthesis"
	case "transcriptions":
		return "transcription"
	case "delivery_profiles":
		return "delivery profile"
	case "packages":
		return "package"
	}
	return section
}

// nodePos is the position of n in file.
func nodePos(file string, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

// sortedNames returns the names of a section in sorted order.
func (r *Raw) sortedNames(section string) []string {
	m := r.Blocks[section]
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
