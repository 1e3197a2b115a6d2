package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// cacheFlag is -cache: which output caches a command may restore from
// and keep outputs in.
type cacheFlag struct{ value string }

// cacheModes maps -cache values to planner cache modes.
var cacheModes = map[string]string{"on": planner.CacheOn, "local": planner.CacheLocal, "off": planner.CacheOff}

func (c *cacheFlag) String() string { return c.value }

func (c *cacheFlag) Set(s string) error {
	if _, ok := cacheModes[s]; !ok {
		return fmt.Errorf("want on, local or off, not %q", s)
	}
	c.value = s
	return nil
}

// register adds -cache to fs, its default from VOXFORM_CACHE (else on).
func (c *cacheFlag) register(env *Env, fs *flag.FlagSet) {
	c.value = "on"
	if v := env.Getenv("VOXFORM_CACHE"); v != "" {
		if err := c.Set(v); err == nil {
			c.value = v
		}
	}
	fs.Var(c, "cache", "output cache: `MODE` on (the local cache and the manifest's remote), local (go on without the remote) or off (default: VOXFORM_CACHE, else on)")
}

// mode is the planner cache mode of the flag.
func (c *cacheFlag) mode() string { return cacheModes[c.value] }

// openWorkspace is the workspace of env.Dir on the state backend that the
// manifest's backend: block and the environment name (the local file when
// there is no manifest), its default cache directory the user's and its
// wait for a held lock lockTimeout. The caller closes it. Only the
// backend: block is read here (errors in it, or a manifest that cannot be
// parsed, are printed); the commands load the whole manifest later.
func openWorkspace(env *Env, vars *varFlags, lockTimeout time.Duration) (*workspace.Workspace, error) {
	b, ds := manifest.LoadBackend(env.Dir, vars.options(env))
	if ds.HasErrors() {
		writeDiagnostics(env.Stderr, ds)
		return nil, diagnosticsError(ds)
	}
	be, err := workspace.NewBackend(env.Dir, b, env.Getenv)
	if err != nil {
		return nil, err
	}
	ws := workspace.On(env.Dir, be)
	ws.CacheDir = env.CacheDir
	ws.LockTimeout = lockTimeout
	ws.Notify = func(s string) { fmt.Fprintf(env.Stderr, "voxform: %s\n", untrusted.Lines(s)) }
	ws.Encoder = encoderIdentity
	return ws, nil
}

// lockTimeoutFlag adds -lock-timeout to fs.
func lockTimeoutFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "lock-timeout", 0, "wait up to `DURATION` for a state lock another process holds (default: fail at once, naming the holder)")
}
