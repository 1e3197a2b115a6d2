package manifest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// forEach returns the elements of a for_each value: an inline list of
// strings, an inline map, or the path of a CSV, TSV, JSON or YAML file.
// Duplicate and empty keys are errors at the key's position. At most room
// elements are returned: the one past them is refused (see MaxSyntheses)
// and the rest are not read.
func (x *expander) forEach(file string, n *yaml.Node, sc *scope, room int) ([]*eachValue, bool) {
	n = deref(n)
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode {
		v, _, ok := x.ip.interpolate(file, n, sc, &x.ds)
		s, isStr := v.(string)
		if !ok || !isStr || s == "" {
			if ok {
				x.ds.Errorf(nodePos(file, n), "for_each must be a list, a map or the path of a data file, not %s", typeName(v))
			}
			return nil, false
		}
		return x.forEachFile(nodePos(file, n), s, room)
	}
	return x.forEachNode(file, n, room)
}

// forEachNode reads an inline (or data file's) list or map.
func (x *expander) forEachNode(file string, n *yaml.Node, room int) ([]*eachValue, bool) {
	var out []*eachValue
	seen := map[string]Pos{}
	add := func(ev *eachValue) {
		if x.synthesesOver {
			return
		}
		key, _ := ev.Key.V.(string)
		if key == "" {
			x.ds.Errorf(ev.Key.Pos, "for_each key is empty").WithHint("every element needs a non-empty key")
			return
		}
		if prev, dup := seen[key]; dup {
			x.ds.Errorf(ev.Key.Pos, "for_each key %q is used twice (first at %s)", key, prev)
			return
		}
		if len(out) == room {
			x.tooManySyntheses(ev.Key.Pos, fmt.Sprintf("for_each key %q", key))
			return
		}
		seen[key] = ev.Key.Pos
		out = append(out, ev)
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if x.synthesesOver {
				break
			}
			item = deref(item)
			if item == nil {
				continue
			}
			if item.Kind == yaml.MappingNode {
				ev, ok := x.eachFromMap(file, item, nil)
				if ok {
					add(ev)
				}
				continue
			}
			if item.Kind != yaml.ScalarNode || isNull(item) {
				x.ds.Errorf(nodePos(file, item), "for_each list items must be strings or maps with a key field")
				continue
			}
			v := value{V: item.Value, Pos: valuePos(file, item), Exact: exactScalar(item)}
			add(&eachValue{Key: v, Value: v})
		}
	case yaml.MappingNode:
		for _, e := range entries(n) {
			if x.synthesesOver {
				break
			}
			key := value{V: e.Key.Value, Pos: valuePos(file, e.Key), Exact: exactScalar(e.Key)}
			val := deref(e.Val)
			if val != nil && val.Kind == yaml.MappingNode {
				ev, ok := x.eachFromMap(file, val, &key)
				if ok {
					add(ev)
				}
				continue
			}
			if val != nil && val.Kind == yaml.SequenceNode {
				x.ds.Errorf(nodePos(file, val), "for_each value of key %q is a list; want a string or a map", e.Key.Value)
				continue
			}
			var sv any = ""
			if val != nil {
				sv = scalarValue(val)
			}
			add(&eachValue{Key: key, Value: value{V: sv, Pos: valuePos(file, val), Exact: exactScalar(val)}})
		}
	default:
		x.ds.Errorf(nodePos(file, n), "for_each must be a list, a map or the path of a data file")
		return nil, false
	}
	return out, true
}

// eachFromMap builds an element from a map of fields; key is nil when the
// key is the map's own "key" field (list items, data file rows).
func (x *expander) eachFromMap(file string, m *yaml.Node, key *value) (*eachValue, bool) {
	ev := &eachValue{Fields: map[string]value{}}
	obj := map[string]any{}
	for _, e := range entries(m) {
		v, err := ToJSON(e.Val)
		if err != nil {
			x.ds.Errorf(nodePos(file, e.Val), "%v", err)
			return nil, false
		}
		if s, ok := v.(string); ok || v == nil {
			v = s
		}
		obj[e.Key.Value] = v
		ev.Fields[e.Key.Value] = value{V: v, Pos: valuePos(file, deref(e.Val)), Exact: exactScalar(e.Val)}
	}
	ev.Value = value{V: obj, Pos: nodePos(file, m)}
	if key != nil {
		ev.Key = *key
		return ev, true
	}
	k, ok := ev.Fields["key"]
	if !ok {
		x.ds.Errorf(nodePos(file, m), "for_each item has no key field").WithHint("give each item a key: field")
		return nil, false
	}
	if _, isScalar := scalarString(k.V); !isScalar {
		x.ds.Errorf(k.Pos, "for_each key must be a string, not a %s", typeName(k.V))
		return nil, false
	}
	ks, _ := scalarString(k.V)
	ev.Key = value{V: ks, Pos: k.Pos, Exact: k.Exact}
	return ev, true
}

// forEachFile reads a data file named by a for_each value.
func (x *expander) forEachFile(at Pos, path string, room int) ([]*eachValue, bool) {
	rel := filepath.ToSlash(filepath.Clean(path))
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv", ".tsv", ".json", ".yaml", ".yml":
	default:
		x.ds.Errorf(at, "for_each file %q: unknown data format %q", path, ext).
			WithHint("use a .csv, .tsv, .json, .yaml or .yml file")
		return nil, false
	}
	df, err := x.readData(filepath.Clean(path), ext)
	if err != nil {
		x.ds.Errorf(at, "for_each file %q: %v", path, errCause(err))
		return nil, false
	}
	if !x.dataSeen[rel] {
		x.dataSeen[rel] = true
		x.hashFiles = append(x.hashFiles, hashed{name: "data:" + rel, data: df.src})
	}
	if ext == ".csv" || ext == ".tsv" {
		sep := ','
		if ext == ".tsv" {
			sep = '\t'
		}
		return x.forEachCSV(rel, df, sep, room)
	}
	root := x.dataDocument(rel, df)
	if root == nil {
		return nil, false
	}
	return x.forEachNode(rel, root, room)
}

// dataFile is a for_each data file, read (and a JSON or YAML one parsed
// and checked) once however many blocks use it.
type dataFile struct {
	src   []byte
	lines []int // where each line of a CSV or TSV file starts
	// parsed is set once a JSON or YAML file is parsed: root is its
	// document, nil when it was refused (that is reported).
	parsed bool
	root   *yaml.Node
}

// dataDocument parses and checks a JSON or YAML data file, once.
func (x *expander) dataDocument(rel string, df *dataFile) *yaml.Node {
	if df.parsed {
		return df.root
	}
	df.parsed = true
	if doc := x.raw.dataDocument(rel, df.src); doc != nil {
		// Parsed and checked with the manifests, without a problem.
		df.root = deref(doc)
		if df.root == nil {
			x.ds.Errorf(Pos{File: rel, Line: 1, Col: 1}, "data file %s is empty", rel)
		}
	} else {
		df.root = parseData(rel, df.src, &x.ds)
	}
	return df.root
}

// parseData parses and checks the first document of a data file; nil when
// it is refused or empty (reported).
func parseData(rel string, src []byte, ds *Diagnostics) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		ds.Errorf(Pos{File: rel, Line: 1, Col: 1}, "invalid data file: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	if !checkAliases(rel, &doc, ds) {
		return nil
	}
	root := deref(&doc)
	if root == nil {
		ds.Errorf(Pos{File: rel, Line: 1, Col: 1}, "data file %s is empty", rel)
		return nil
	}
	// Duplicate keys of the top mapping are for_each keys, reported by
	// forEachNode; deeper ones are checked here.
	for _, c := range root.Content {
		checkDuplicateKeys(rel, c, ds, 1)
	}
	return root
}

// readData reads a data file, named as the manifest names it, once: up to
// MaxDataBytes for CSV and TSV, MaxDocumentDataBytes for JSON and YAML.
func (x *expander) readData(name, ext string) (*dataFile, error) {
	if df, ok := x.dataCache[name]; ok {
		return df, nil
	}
	limit, tooLarge := MaxDataBytes, errDataTooLarge
	if ext != ".csv" && ext != ".tsv" {
		limit, tooLarge = MaxDocumentDataBytes, errDocumentTooLarge
	}
	b, err := x.raw.readInput(name, int64(limit))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, tooLarge
	}
	df := &dataFile{src: b}
	x.dataCache[name] = df
	return df, nil
}

// arenaRows is how many rows forEachCSV allocates at a time: the rows of
// 100,000 lines are a few hundred allocations, and those of the rows
// already expanded are let go of as the expansion goes on (see
// expandSyntheses), rather than held until the last row is.
const arenaRows = 1024

// forEachCSV reads a CSV or TSV file: a header row naming the columns, a
// key column required, one element per row whose value is the row's map.
func (x *expander) forEachCSV(file string, df *dataFile, sep rune, room int) ([]*eachValue, bool) {
	src := bytes.TrimPrefix(df.src, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(src))
	r.Comma = sep
	r.ReuseRecord = true
	if sep == '\t' {
		r.LazyQuotes = true
	}
	if df.lines == nil {
		df.lines = lineStarts(src)
	}
	lines := df.lines
	header, err := r.Read()
	if err != nil {
		x.csvError(file, err)
		return nil, false
	}
	cols := append([]string(nil), header...)
	keyCol := -1
	seenCol := map[string]bool{}
	for i, c := range cols {
		c = strings.TrimSpace(c)
		cols[i] = c
		line, col := r.FieldPos(i)
		if seenCol[c] {
			x.ds.Errorf(Pos{File: file, Line: line, Col: col}, "column %q appears twice in the header", c)
			return nil, false
		}
		seenCol[c] = true
		if c == "key" {
			keyCol = i
		}
	}
	if keyCol < 0 {
		d := x.ds.Errorf(Pos{File: file, Line: 1, Col: 1}, "data file has no key column (columns: %s)", strings.Join(cols, ", "))
		if s := Suggest("key", cols); s != "" {
			d.WithHint("rename column %q to key", s)
		} else {
			d.WithHint("add a column named key to the header row")
		}
		return nil, false
	}
	// A row takes a line at least: sized for the lines, the rows and the
	// keys seen are an allocation each, the rows' values and cells one
	// for each arenaRows of them (100,000 rows made 500,000).
	n := len(lines)
	rows := make([]*eachValue, 0, min(n, room+1))
	evs := make([]eachValue, 0, min(cap(rows), arenaRows))
	cells := make([]value, 0, cap(evs)*len(cols))
	seen := make(map[string]int, cap(rows))
	colIndex := make(map[string]int, len(cols))
	for i, c := range cols {
		colIndex[c] = i
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			x.csvError(file, err)
			return nil, false
		}
		if len(evs) == cap(evs) || cap(cells)-len(cells) < len(cols) {
			evs, cells = make([]eachValue, 0, arenaRows), make([]value, 0, arenaRows*len(cols))
		}
		evs = append(evs, eachValue{Cols: colIndex})
		ev := &evs[len(evs)-1]
		ev.Row, cells = cells[len(cells):len(cells)+len(cols):len(cells)+len(cols)], cells[:len(cells)+len(cols)]
		for i := range cols {
			line, col := r.FieldPos(i)
			p, exact := cellPos(file, src, lines, line, col)
			ev.Row[i] = value{V: rec[i], Pos: p, Exact: exact}
		}
		// A row is a map; its fields are in ev.Row.
		ev.Value = value{V: map[string]any(nil), Pos: ev.Row[0].Pos}
		k := ev.Row[keyCol]
		ev.Key = k
		key := rec[keyCol]
		switch prev, dup := seen[key]; {
		case strings.TrimSpace(key) == "":
			x.ds.Errorf(k.Pos, "empty key in row %d", k.Pos.Line).WithHint("every row needs a non-empty key")
		case dup:
			x.ds.Errorf(k.Pos, "key %q is used twice (first at line %d)", key, prev)
		case len(rows) == room:
			x.tooManySyntheses(k.Pos, fmt.Sprintf("for_each key %q", key))
			return rows, true
		default:
			seen[key] = k.Pos.Line
			rows = append(rows, ev)
		}
	}
	return rows, true
}

func (x *expander) csvError(file string, err error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		x.ds.Errorf(Pos{File: file, Line: pe.Line, Col: pe.Column}, "invalid data file: %v", pe.Err)
		return
	}
	if errors.Is(err, io.EOF) {
		x.ds.Errorf(Pos{File: file, Line: 1, Col: 1}, "data file is empty").WithHint("the first row must name the columns, one of them key")
		return
	}
	x.ds.Errorf(Pos{File: file}, "invalid data file: %v", err)
}

func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+2)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// cellPos converts the csv package's byte column to a rune column, moving
// past an opening quote; exact is false for quoted cells with escapes.
func cellPos(file string, src []byte, lines []int, line, col int) (Pos, bool) {
	if line < 1 || line > len(lines) {
		return Pos{File: file, Line: line, Col: col}, false
	}
	start := lines[line-1]
	off := start + col - 1
	if off > len(src) {
		off = len(src)
	}
	exact := true
	runeCol := utf8.RuneCount(src[start:off]) + 1
	if off < len(src) && src[off] == '"' {
		runeCol++
		end := bytes.IndexByte(src[off+1:], '"')
		exact = end >= 0 && (off+2+end >= len(src) || src[off+2+end] != '"') &&
			!bytes.ContainsRune(src[off+1:off+1+end], '\n')
	}
	return Pos{File: file, Line: line, Col: runeCol}, exact
}

// valuePos is the position of a scalar's first character of content.
func valuePos(file string, n *yaml.Node) Pos {
	n = deref(n)
	p := nodePos(file, n)
	if n != nil && n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		p.Col++
	}
	return p
}
