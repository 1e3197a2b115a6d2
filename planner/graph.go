package planner

import (
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/voxform/voxform/manifest"
)

// WriteDOT writes the resource graph of m in Graphviz DOT. Edges point in
// execution order, from what is needed to what needs it: an embedding to
// the cloned voice using it, a voice to its syntheses, a chapter's
// synthesis to its package. Nodes are grouped by kind.
func WriteDOT(w io.Writer, m *manifest.Manifest) error {
	bw := &errWriter{w: w}
	bw.printf("digraph voxform {\n\trankdir = \"LR\";\n\tnode [shape = \"box\"];\n")
	for _, v := range m.Voices {
		bw.printf("\t%s [shape = \"ellipse\"];\n", strconv.Quote(v.Address))
	}
	for _, e := range m.Embeddings {
		bw.printf("\t%s;\n", strconv.Quote(e.Address))
	}
	for _, s := range m.Syntheses {
		bw.printf("\t%s;\n", strconv.Quote(s.Address))
	}
	for _, t := range m.Transcriptions {
		bw.printf("\t%s;\n", strconv.Quote(t.Address))
	}
	for _, p := range m.Packages {
		bw.printf("\t%s [shape = \"folder\"];\n", strconv.Quote(p.Address))
	}
	var edges []string
	for _, v := range m.Voices {
		if v.Embedding != "" {
			edges = append(edges, edge("embedding."+v.Embedding, v.Address))
		}
	}
	for _, s := range m.Syntheses {
		edges = append(edges, edge("voice."+s.Voice, s.Address))
	}
	for _, p := range m.Packages {
		seen := map[string]bool{}
		for _, ch := range p.Chapters {
			if !seen[ch.Synthesis] {
				seen[ch.Synthesis] = true
				edges = append(edges, edge(ch.Synthesis, p.Address))
			}
		}
	}
	sort.Strings(edges)
	for _, e := range edges {
		bw.printf("\t%s;\n", e)
	}
	bw.printf("}\n")
	return bw.err
}

func edge(from, to string) string { return strconv.Quote(from) + " -> " + strconv.Quote(to) }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}
