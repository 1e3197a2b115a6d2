package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// EmulatedCacheDir is where, below the local cache directory, the
// outputs of the built-in emulator are kept (Workspace.Emulated): apart
// from the service's, so that a plan against the service never restores
// the emulator's audio as if the service had made it. Emulated runs of
// every project that shares the cache directory share it.
const EmulatedCacheDir = "emulated"

// CacheDir is the local cache directory of m: its cache.dir (relative to
// the manifest directory) or VOXFORM_CACHE_DIR, else defaultDir, which the
// commands take from the user's cache directory.
func CacheDir(m *manifest.Manifest, defaultDir string) (string, error) {
	switch dir := m.Cache.Dir; {
	case dir != "" && filepath.IsAbs(dir):
		return dir, nil
	case dir != "":
		return filepath.Join(m.Dir, filepath.FromSlash(dir)), nil
	case defaultDir != "":
		return defaultDir, nil
	}
	return "", advise(errors.New("no cache directory: set cache.dir or VOXFORM_CACHE_DIR"), "or go on without the output cache with -cache=off")
}

// OpenCache opens the output cache of m in mode (planner.CacheOn,
// CacheLocal; nil for CacheOff): the local cache in dir and, with CacheOn,
// the manifest's remote, checked now: an unreachable or misconfigured
// remote is an error naming it, so that a plan never shows as billed work
// the team may already have.
func OpenCache(ctx context.Context, m *manifest.Manifest, mode, dir string) (*cache.Cache, error) {
	switch mode {
	case planner.CacheOff:
		return nil, nil
	case planner.CacheLocal, planner.CacheOn:
	default:
		return nil, fmt.Errorf("unknown cache mode %q: on, local or off", mode)
	}
	local, err := cache.OpenLocal(dir)
	if err != nil {
		return nil, advise(fmt.Errorf("open the cache: %w", err), "set cache.dir or VOXFORM_CACHE_DIR to a writable directory, or use -cache=off")
	}
	c := &cache.Cache{Local: local}
	if mode == planner.CacheLocal || m.Cache.Remote == "" {
		return c, nil
	}
	remote, err := cache.OpenRemote(cache.RemoteConfig{URL: m.Cache.Remote, Endpoint: m.Cache.Endpoint, Region: m.Cache.Region})
	if err == nil {
		err = remote.Check(ctx)
	}
	if err != nil {
		return nil, advise(fmt.Errorf("remote cache: %w", err),
			"fix cache.remote (or VOXFORM_CACHE_REMOTE) and its credentials, or go on without it with -cache=local (what the team has may then be billed again)")
	}
	c.Remote = remote
	return c, nil
}

// chunkLookup tells which chunks the store of an apply without an output
// cache holds (executor.ChunkDir below the manifest directory dir), so
// that a plan with -cache=off prices every chunk that store lacks: none
// when there is no store yet.
func chunkLookup(dir string) planner.Lookup {
	return func(fps []string) (map[string]string, error) {
		p := filepath.Join(dir, executor.ChunkDir)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return map[string]string{}, nil
		}
		l, err := cache.OpenLocal(p)
		if err != nil {
			return nil, fmt.Errorf("open the chunk store %s: %w", executor.ChunkDir, err)
		}
		out := map[string]string{}
		for fp := range l.HasEntries(fps) {
			out[fp] = "local"
		}
		return out, nil
	}
}
