package cli

import (
	"flag"
	"fmt"

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

// newWorkspace is the workspace of env.Dir, its default cache directory
// the user's.
func newWorkspace(env *Env) *workspace.Workspace {
	ws := workspace.New(env.Dir)
	ws.CacheDir = env.CacheDir
	return ws
}
