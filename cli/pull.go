package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "pull", synopsis: "materialise recorded outputs from the output cache, calling no service", run: runPull})
	register(&command{name: "push", synopsis: "send to the remote output cache every recorded output it lacks", run: runPush})
	register(&command{name: "cache", synopsis: "manage the local output cache ('voxform cache gc')", run: runCache})
}

const pullUsage = `
Usage: voxform pull [flags]

Restores from the output cache (local, then the manifest's remote) every
output the plan can restore: on a fresh clone whose state is committed and
whose outputs are not, every recorded output, byte for byte, leaving the
state file as it was. A cached entry whose files are not the ones the
state records is refused, never written. It calls no speech service and
bills nothing; what the caches do not hold, or hold otherwise than the
state records, is listed with why and left for 'voxform apply', which
shows what it costs.

Flags:
`

func runPull(ctx context.Context, env *Env, args []string) error {
	var vars varFlags
	var c cacheFlag
	var lockTimeout time.Duration
	fs := newFlagSet(env, "pull", pullUsage)
	vars.register(fs)
	c.register(env, fs)
	lockTimeoutFlag(fs, &lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("pull takes no arguments")
	}
	if c.mode() == planner.CacheOff {
		return usageErrorf("pull: -cache=off leaves nothing to pull from")
	}
	m, err := loadManifest(env, &vars)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(env, &vars, lockTimeout)
	if err != nil {
		return err
	}
	defer ws.Close()
	sess, err := ws.Lock(ctx, "pull")
	if err != nil {
		return err
	}
	defer sess.Close()
	warn := func(e executor.Event) {
		if e.Kind == executor.EventWarning || e.Kind == executor.EventFailed {
			fmt.Fprintf(env.Stderr, "voxform: warning: %s: %s\n", untrusted.Escape(e.Address), untrusted.Lines(errString(e.Err)))
		}
	}
	opts := executor.Options{Events: warn, MeasureLoudness: measuresLoudness(m)}
	if t := encoderOnPath(); t != nil {
		opts.Encoder, opts.Books = t, t // a delivered output the cache lacks is mastered again
	}
	sum, left, err := sess.Pull(ctx, m, c.mode(), opts)
	if err != nil {
		return err
	}
	// The restored files, settled, leave the next plan warm, as apply does.
	if herr := sess.SaveHashes(); herr != nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Lines(herr.Error()))
	}
	if cerr := sess.Close(); cerr != nil {
		return cerr
	}
	fmt.Fprintf(env.Stdout, "Restored %d resource(s) from the output cache; the service was not called.\n", sum.Done)
	if left.HasChanges() {
		fmt.Fprintf(env.Stdout, "Not restored from the cache, left for 'voxform apply' (%d change(s)):\n", len(left.Actions))
		for _, a := range left.Actions {
			fmt.Fprintf(env.Stdout, "  %s %s: %s (%s)\n", a.Type.Symbol(), untrusted.Escape(a.Address), untrusted.Escape(strings.Join(a.Reasons, "; ")), a.Cost.Short())
		}
		fmt.Fprintln(env.Stdout, left.Cost.Line())
	}
	if sum.Failed > 0 {
		return fmt.Errorf("pull: %d restore(s) failed: %v", sum.Failed, sum.Failures[0].Err)
	}
	return nil
}

const pushUsage = `
Usage: voxform push [flags]

Sends to the manifest's remote output cache (cache.remote, or
VOXFORM_CACHE_REMOTE) every recorded output it lacks: apply pushes what it
makes as it goes, and push sends what an apply could not (the remote was
down) or what was made before the remote was set.

Flags:
`

func runPush(ctx context.Context, env *Env, args []string) error {
	var vars varFlags
	fs := newFlagSet(env, "push", pushUsage)
	vars.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("push takes no arguments")
	}
	m, err := loadManifest(env, &vars)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(env, &vars, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	rep, err := ws.Push(ctx, m)
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Lines(errString(p)))
	}
	fmt.Fprintf(env.Stdout, "Pushed %d resource(s) to %s; %d were there already.\n", rep.Pushed, untrusted.Escape(m.Cache.Remote), rep.Present)
	if len(rep.Problems) > 0 {
		return fmt.Errorf("push: %d resource(s) not pushed", len(rep.Problems))
	}
	return nil
}

const cacheUsage = `
Usage: voxform cache gc [flags]

Removes from the local output cache the entries that no state references
(this project's, and each -project's; a chunked synthesis references its
chunks too), once unused for -older-than, then the files no entry
references, and the copies of remote index segments older than
-older-than or that do not check; the emulator's outputs (kept apart by
-emulate) likewise. The cache is shared by every project of the user: name
the others with -project, or let -older-than protect them. The remote
cache is never touched.

Flags:
`

func runCache(ctx context.Context, env *Env, args []string) error {
	gc := len(args) > 0 && args[0] == "gc"
	if gc {
		args = args[1:]
	}
	var vars varFlags
	var opts workspace.GCOptions
	fs := newFlagSet(env, "cache", cacheUsage)
	vars.register(fs)
	fs.Var(repeated{&opts.Projects}, "project", "keep the entries the state of the manifest directory `DIR` references too (repeatable)")
	fs.DurationVar(&opts.OlderThan, "older-than", 30*24*time.Hour, "remove an unreferenced entry only once unused for `DURATION` (0: at once)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "report what would be removed, remove nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !gc {
		return usageErrorf("cache: want a subcommand: gc")
	}
	if fs.NArg() > 0 {
		return usageErrorf("cache gc takes no arguments")
	}
	if opts.OlderThan < 0 {
		return usageErrorf("cache gc: -older-than must not be negative")
	}
	m, err := loadManifest(env, &vars)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(env, &vars, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	rep, err := ws.GC(ctx, m, opts)
	if err != nil {
		return err
	}
	verb := "Removed"
	if opts.DryRun {
		verb = "Would remove"
	}
	fmt.Fprintf(env.Stdout, "%s %d entr%s and %d file(s), %d bytes, from the local output cache.\n", verb, rep.Entries, plural(rep.Entries, "y", "ies"), rep.Blobs+rep.Segments, rep.Bytes)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
