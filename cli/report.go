package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	reportpage "github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "report", synopsis: "write an HTML page to review the last apply or a saved plan by listening", run: runReport})
}

const reportUsage = `
Usage: voxform report [flags] [PLANFILE]

Writes a static HTML page (index.html, with the audio it plays in audio/ and
a waveform of each in wave/) to review by listening: every resource with
its text, model, voice, language, duration, size and cost, a player for its
audio, transcripts whose segments play from where they start, and filters.
It needs nothing but its directory: open it from disk or a CI artifact.

Without PLANFILE the page shows the state. With -previous, a state from
before the last apply (for example 'git show HEAD:voxform.state.json'), it
shows what that apply created, replaced and deleted, with the previous
texts as a word diff and the previous audio from the output cache. With
PLANFILE it shows the saved plan, which must still match the state and the
manifest.

Flags:
`

// reportOptions are the flags of report.
type reportOptions struct {
	out      string
	previous string
	plan     string
	cache    string
	loudness bool
}

func runReport(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "report", reportUsage)
	var o reportOptions
	fs.StringVar(&o.out, "out", "report", "write the page into `DIR` (relative to the manifest directory)")
	fs.StringVar(&o.previous, "previous", "", "compare with the state in `FILE` from before the last apply ('-': standard input)")
	fs.StringVar(&o.cache, "cache", "local", "take outputs no longer on disk from the local output cache (`local`), or not (off)")
	fs.BoolVar(&o.loudness, "loudness", false, "measure the integrated loudness (LUFS) and true peak of every audio file (without it: the figures apply recorded)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		o.plan = fs.Arg(0)
	default:
		return usageErrorf("report: too many arguments")
	}
	if o.cache != "local" && o.cache != "off" {
		return usageErrorf("report -cache %q: want local or off", o.cache)
	}
	if o.plan != "" && o.previous != "" {
		return usageErrorf("report: -previous is for the last apply; a saved plan is compared with the state")
	}
	return writeReport(ctx, env, o)
}

// writeReport builds the page of o.
func writeReport(ctx context.Context, env *Env, o reportOptions) error {
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	in := reportpage.Input{Dir: env.Dir, Out: o.out, State: st, Loudness: o.loudness}
	if !filepath.IsAbs(in.Out) {
		in.Out = filepath.Join(env.Dir, in.Out)
	}
	var m *manifest.Manifest
	if o.plan != "" {
		s, err := ws.ReadPlan(o.plan)
		if err != nil {
			return err
		}
		if m, err = loadSavedManifest(env, s); err != nil {
			return err
		}
		if err := s.Check(st, m); err != nil {
			return withHint(fmt.Errorf("%s: %w", o.plan, err), "run 'voxform plan -out "+o.plan+"' again")
		}
		in.Plan, in.Manifest = s, m
	} else {
		var ds manifest.Diagnostics
		m, ds = workspace.New(env.Dir).Load(varOptions(env)) // the cache directory, and the listen: limits when it loads
		if !ds.HasErrors() {
			in.Manifest = m
		}
		if o.previous != "" {
			if in.Previous, err = readPreviousState(env, o.previous); err != nil {
				return err
			}
		}
	}
	if o.cache == "local" {
		in.Cache = openReportCache(env, m)
	}
	if err := reportpage.Build(ctx, in); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote %s (%d resource%s).\n", filepath.Join(in.Out, reportpage.PageName), reportCount(in), pluralS(reportCount(in)))
	return nil
}

func varOptions(env *Env) manifest.LoadOptions { return (*varFlags)(nil).options(env) }

func reportCount(in reportpage.Input) int {
	if in.Plan != nil {
		return len(in.Plan.Plan.Actions) + in.Plan.Plan.NoOps
	}
	return len(in.State.Resources)
}

// readPreviousState reads the state file name ("-": standard input), as
// voxform.state.json is read: its version first, at most state.MaxStateSize.
func readPreviousState(env *Env, name string) (*state.File, error) {
	var r io.Reader = env.Stdin
	if name != "-" {
		if !filepath.IsAbs(name) {
			name = filepath.Join(env.Dir, name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("report -previous: %w", err)
		}
		defer f.Close()
		r = f
	}
	st, err := state.Decode(r)
	if err != nil {
		return nil, withHint(fmt.Errorf("report -previous %s: %w", name, err), "give a voxform.state.json from before the last apply, for example: git show HEAD:voxform.state.json | voxform report -previous -")
	}
	return st, nil
}

// openReportCache opens the local output cache for reading, when it
// exists: the report never creates it.
func openReportCache(env *Env, m *manifest.Manifest) *cache.Local {
	dir := env.CacheDir
	if m != nil {
		if d, err := workspace.CacheDir(m, env.CacheDir); err == nil {
			dir = d
		}
	} else if d := env.Getenv("VOXFORM_CACHE_DIR"); d != "" {
		dir = d
	}
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Join(dir, "v1", "entries")); err != nil || !st.IsDir() {
		return nil
	}
	l, err := cache.OpenLocal(dir)
	if err != nil {
		return nil
	}
	return l
}
