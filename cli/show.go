package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "show", synopsis: "show the state, or a saved plan", run: runShow})
}

const showUsage = `
Usage: voxform show [flags] [PLANFILE]

Without PLANFILE, shows every recorded resource of voxform.state.json (with
-json: the state itself). With PLANFILE, shows the saved plan, which must
still match the state and the manifest.

Flags:
`

func runShow(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "show", showUsage)
	jsonOut := fs.Bool("json", false, "JSON output")
	noColor := fs.Bool("no-color", false, "no colours in the output")
	markdown := fs.Bool("markdown", false, "a saved plan as a Markdown summary (for a pull request comment or a CI job summary)")
	var markdownBytes int
	markdownBytesFlag(fs, &markdownBytes)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *jsonOut && *markdown {
		return usageErrorf("show: -json and -markdown cannot be used together")
	}
	if err := checkMarkdownBytes("show", *markdown, markdownBytes); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		if *markdown {
			return usageErrorf("show: -markdown shows a saved plan: voxform show -markdown PLANFILE")
		}
		return showState(ctx, env, *jsonOut)
	case 1:
		return showPlan(ctx, env, fs.Arg(0), planOutput{json: *jsonOut, markdown: *markdown, noColor: *noColor, markdownBytes: markdownBytes})
	}
	return usageErrorf("show: too many arguments")
}

func showState(ctx context.Context, env *Env, jsonOut bool) error {
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	if jsonOut {
		return st.Encode(env.Stdout)
	}
	if len(st.Resources) == 0 {
		fmt.Fprintln(env.Stdout, "The state is empty.")
		return nil
	}
	return renderState(env.Stdout, st)
}

// renderState writes one row per recorded resource.
func renderState(w io.Writer, st *state.File) error {
	addrs := st.Addresses()
	rows := func(yield func([]string) bool) {
		row := make([]string, 6)
		for _, addr := range addrs {
			r := st.Resources[addr]
			var outs []string
			for _, o := range r.Outputs {
				outs = append(outs, o.Path)
			}
			status := r.Status
			if r.Details().JobID != "" && r.Status == state.StatusPending {
				status += " (job " + r.Details().JobID + ")"
			}
			// The state is anyone's text: nothing in it acts on the terminal.
			row[0], row[1], row[2], row[3], row[4], row[5] = addr, status, strings.Join(outs, ", "), billedCell(r), approvalCell(r), r.OriginLabel()
			for i := range row {
				row[i] = untrusted.Escape(row[i])
			}
			if !yield(row) {
				return
			}
		}
	}
	if err := planview.WriteTable(w, []string{"ADDRESS", "STATUS", "OUTPUTS", "BILLED", "APPROVAL", "ORIGIN"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d resource%s, state serial %d, lineage %s.\n", len(st.Resources), pluralS(len(st.Resources)), st.Serial, untrusted.Escape(st.Lineage))
	return err
}

// approvalCell is a resource's sign-off in a word: "approved" (it
// holds), "lost" (the outputs changed since), or nothing.
func approvalCell(r *state.Resource) string {
	switch {
	case r.Details().Approval == nil:
		return ""
	case r.Approved():
		return "approved"
	}
	return "lost"
}

func billedCell(r *state.Resource) string {
	switch {
	case r.BilledCharacters > 0:
		return numfmt.Thousands(r.BilledCharacters) + " chars"
	case r.Details().BilledAudioSeconds > 0:
		return planner.Duration(r.Details().BilledAudioSeconds) + " audio"
	}
	return ""
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func showPlan(ctx context.Context, env *Env, name string, o planOutput) error {
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	s, err := ws.ReadPlan(name)
	if err != nil {
		return err
	}
	m, err := loadSavedManifest(env, s)
	if err != nil {
		return err
	}
	if err := s.Check(st, m); err != nil {
		return withHint(fmt.Errorf("%s: %w", name, err), "run 'voxform plan -out "+name+"' again")
	}
	o.approvals = planview.CountApprovals(s.Plan, st)
	if err := writePlan(env, s.Plan, m, o); err != nil {
		return err
	}
	if s.Emulate && o.table() {
		fmt.Fprintln(env.Stdout, "\nIt was made with -emulate: applying it runs against the built-in emulator, not the speech service.")
	}
	return nil
}
