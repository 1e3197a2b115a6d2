package manifest

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/numfmt"
	"go.yaml.in/yaml/v3"
)

// Limits on what the loader reads, so that a hostile or mistaken input (a
// YAML alias bomb, a data file that is a disk image) is refused with a
// positioned error instead of taking minutes or all the memory. (A device,
// a pipe or a procfs file is not read at all: owned.Root.OpenInput.) A manifest within them validates in well under a second.
const (
	// MaxManifestBytes is the largest manifest file, and the largest
	// -var-file, the loader reads: 4 MiB.
	MaxManifestBytes = 4 << 20
	// MaxDataBytes is the largest CSV or TSV for_each data file: 16 MiB.
	// Its rows are read up to MaxSyntheses, never further.
	MaxDataBytes = 16 << 20
	// MaxDocumentDataBytes is the largest JSON or YAML for_each data file:
	// 1 MiB, as large as a manifest that validates in well under a second.
	// Such a file is parsed whole into a YAML node tree, at some 200 ms per
	// MiB, before its first element is used.
	MaxDocumentDataBytes = 1 << 20
	// MaxAliasNodes bounds the nodes one YAML document (a manifest
	// document, a data file, a -var-file) reaches through aliases and
	// merge keys, each alias counting every node of the value it copies,
	// nested aliases included. yaml.v3 builds the document's node graph
	// without expanding it; the loader's merge-key resolution, its
	// conversion for the JSON Schema and the checks of each resource
	// expand it, and a few hundred bytes of nested merges
	// (<<: [*a, *a, ...]) expand to billions of nodes.
	MaxAliasNodes = 200_000
	// MaxAliasBytes bounds the bytes of scalar values (keys included) one
	// document reaches through aliases, as MaxAliasNodes bounds nodes: a
	// long text referenced by thousands of aliases is checked thousands
	// of times. 4 MiB, what one manifest file may hold.
	MaxAliasBytes = MaxManifestBytes
	// MaxExpandedBytes bounds the bytes of the string values evaluated for
	// one manifest's resources, counted per resource: a variable or a
	// default is copied into every synthesis that uses it, and each
	// instance of a for_each block evaluates its fields again, so that a
	// 40 KB variable used by 20,000 syntheses is 800 MB of text to check,
	// plan and record. 64 MiB: four times what a full for_each data file
	// holds. The reference (or value) that crosses it is refused.
	MaxExpandedBytes = 64 << 20
	// MaxCatalogNames bounds the names a manifest's catalog: block adds
	// (models, voices, languages and recognition languages together):
	// every voice and synthesis is checked against these lists. 1,000; the
	// name past it is refused.
	MaxCatalogNames = 1_000
	// MaxSyntheses bounds the syntheses one manifest declares, each
	// for_each element counting one: each is expanded, checked, planned
	// and recorded, and a data file within MaxDataBytes can hold millions
	// of rows. 100,000 (the scale voxform is measured at: about a second
	// of validation on two cores); the element (or block) past it is
	// refused, and data files are read no further.
	MaxSyntheses = 100_000
	// MaxSpokenTextBytes is the longest text of one synthesis with its
	// lexicon applied, as it is sent: 8 MiB, twice MaxTextFileBytes. A
	// lexicon spells a term out; a one-line lexicon (a spoken as 500
	// characters) makes a 4 MiB text 1 GB, which took 17 s and 4 GB to
	// validate. The text is measured without being made
	// (narration.Lexicon.SpokenLen), and refused at its lexicon field.
	MaxSpokenTextBytes = 2 * MaxTextFileBytes
	// MaxLexiconAddedBytes bounds the bytes lexicons add to the texts of
	// one manifest's syntheses, all together: 64 MiB, as much as
	// MaxExpandedBytes, since each synthesis's text is made with its
	// lexicon applied again by every plan.
	MaxLexiconAddedBytes = MaxExpandedBytes
)

// tooLarge reports a source over limit at its first byte past the limit;
// what names the kind of file ("manifest file", "-var-file").
func tooLarge(file string, src []byte, limit int, what string, ds *Diagnostics) bool {
	if len(src) <= limit {
		return false
	}
	ds.Errorf(offsetPos(file, src, limit), "%s %s is larger than %s bytes (%s), the limit for a %s",
		what, file, numfmt.Thousands(limit), mib(limit), what).
		WithHint("split it into several files, or move long lists into a for_each data file")
	return true
}

// offsetPos is the line and column (in runes) of byte offset off of src.
func offsetPos(file string, src []byte, off int) Pos {
	line, start := 1, 0
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return Pos{File: file, Line: line, Col: utf8.RuneCount(src[start:min(off, len(src))]) + 1}
}

// mib names a limit in MiB.
func mib(n int) string { return strconv.Itoa(n>>20) + " MiB" }

// errDataTooLarge and errDocumentTooLarge are returned by readData for a
// data file over MaxDataBytes or MaxDocumentDataBytes.
var (
	errDataTooLarge = fmt.Errorf("larger than %s bytes (%s), the limit for a for_each data file",
		numfmt.Thousands(MaxDataBytes), mib(MaxDataBytes))
	errDocumentTooLarge = fmt.Errorf("larger than %s bytes (%s), the limit for a JSON or YAML for_each data file (a CSV or TSV file may hold %s)",
		numfmt.Thousands(MaxDocumentDataBytes), mib(MaxDocumentDataBytes), mib(MaxDataBytes))
)

// reach is what a node amounts to with its aliases expanded: nodes, and
// bytes of scalar values.
type reach struct{ nodes, bytes int }

// add adds o to r, capping each count just past its limit.
func (r reach) add(o reach) reach {
	return reach{min(r.nodes+o.nodes, MaxAliasNodes+1), min(r.bytes+o.bytes, MaxAliasBytes+1)}
}

func (r reach) over() bool { return r.nodes > MaxAliasNodes || r.bytes > MaxAliasBytes }

// aliasCounter counts what a document reaches through aliases.
type aliasCounter struct {
	// size memoizes what a node amounts to with its aliases expanded;
	// inProgress marks the nodes being measured, so that a recursive
	// alias is found, not followed.
	size       map[*yaml.Node]reach
	inProgress map[*yaml.Node]bool
	recursive  bool
	reached    reach
}

// checkAliases refuses a document that reaches more than MaxAliasNodes
// nodes or MaxAliasBytes bytes through aliases and merge keys, or holds a
// recursive alias (one inside the value it refers to). The error is at the
// alias where a limit was crossed. Counting takes time linear in the
// document: what each node amounts to is computed once.
func checkAliases(file string, doc *yaml.Node, ds *Diagnostics) bool {
	c := &aliasCounter{size: map[*yaml.Node]reach{}, inProgress: map[*yaml.Node]bool{}}
	at := c.walk(doc)
	switch {
	case at == nil:
		return true
	case c.recursive:
		ds.Errorf(nodePos(file, at), "alias *%s refers to a value that contains it", at.Value).
			WithHint("an alias must refer to an anchor defined outside it")
	case c.reached.nodes > MaxAliasNodes:
		ds.Errorf(nodePos(file, at), "alias *%s brings the nodes reached through aliases and merge keys over %s, the limit for one document",
			at.Value, numfmt.Thousands(MaxAliasNodes)).
			WithHint("each alias copies its anchor's whole value, and aliases nested in merges multiply: merge each shared block once")
	default:
		ds.Errorf(nodePos(file, at), "alias *%s brings the bytes of values reached through aliases and merge keys over %s (%s), the limit for one document",
			at.Value, numfmt.Thousands(MaxAliasBytes), mib(MaxAliasBytes)).
			WithHint("each alias copies its anchor's whole value: refer to long values from fewer places")
	}
	return false
}

// walk visits the document's own nodes in order and adds up what their
// aliases reach; it returns the alias where the count passes a limit.
func (c *aliasCounter) walk(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		c.reached = c.reached.add(c.expanded(n.Alias))
		if c.recursive || c.reached.over() {
			return n
		}
		return nil
	}
	for _, ch := range n.Content {
		if at := c.walk(ch); at != nil {
			return at
		}
	}
	return nil
}

// expanded returns what n amounts to with its aliases expanded, each count
// capped just past its limit.
func (c *aliasCounter) expanded(n *yaml.Node) reach {
	if n == nil {
		return reach{}
	}
	if n.Kind == yaml.AliasNode {
		return c.expanded(n.Alias)
	}
	if r, ok := c.size[n]; ok {
		return r
	}
	if c.inProgress[n] {
		c.recursive = true
		return reach{MaxAliasNodes + 1, MaxAliasBytes + 1}
	}
	c.inProgress[n] = true
	total := reach{nodes: 1}.add(reach{bytes: len(n.Value)})
	for _, ch := range n.Content {
		total = total.add(c.expanded(ch))
	}
	delete(c.inProgress, n)
	c.size[n] = total
	return total
}
