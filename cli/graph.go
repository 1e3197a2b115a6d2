package cli

import (
	"context"

	"github.com/voxform/voxform/planner"
)

func init() {
	register(&command{name: "graph", synopsis: "print the resource graph in Graphviz DOT", run: runGraph})
}

const graphUsage = `
Usage: voxform graph [flags] | dot -Tsvg > graph.svg

Prints the resources of the manifest and their dependencies in Graphviz DOT.
Edges point in execution order: an embedding to the cloned voice using it,
a voice to its syntheses.

Flags:
`

func runGraph(ctx context.Context, env *Env, args []string) error {
	var vars varFlags
	fs := newFlagSet(env, "graph", graphUsage)
	vars.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("graph: unexpected argument %q", fs.Arg(0))
	}
	m, err := loadManifest(env, &vars)
	if err != nil {
		return err
	}
	return planner.WriteDOT(env.Stdout, m)
}
