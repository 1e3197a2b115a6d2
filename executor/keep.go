package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// The cache roles of outputs that are not transcripts (a transcript's
// role is its format).
const (
	roleAudio     = "audio"
	roleEmbedding = "embedding"
)

// keeper keeps every output an apply makes in the cache under its
// fingerprint, then pushes it to the remote in the background. Neither
// ever fails the paid work: a failure is a warning, and 'voxform push'
// sends later what the remote lacks.
type keeper struct {
	cache *cache.Cache
	dir   string // the manifest directory, where outputs are read from
	ctx   context.Context
	emit  func(Event)
	// docs holds, by address, the transcript JSON of a transcription whose
	// json output was not asked for (a scratch file the entry keeps, so
	// that a later restore can render any format).
	docs   sync.Map
	pushes errgroup.Group
}

// pushLimit is how many pushes to the remote run at once.
const pushLimit = 8

// newKeeper returns the keeper of c (nil without a cache) for the outputs
// of the manifest directory dir; its pushes run under ctx.
func newKeeper(ctx context.Context, c *cache.Cache, dir string, emit func(Event)) *keeper {
	if c == nil {
		return nil
	}
	k := &keeper{cache: c, dir: dir, ctx: ctx, emit: emit}
	k.pushes.SetLimit(pushLimit)
	return k
}

// docFile is a scratch transcript JSON with its hash.
type docFile struct {
	path, sha string
	size      int64
}

// keepDoc writes the transcript JSON of a's transcription to a scratch
// file for the cache entry, when its json output was not asked for.
func (k *keeper) keepDoc(a *planner.Action, write func(io.Writer) error) {
	f, err := os.CreateTemp("", "voxform-doc-*.json")
	if err != nil {
		k.warn(a, fmt.Errorf("keep the transcript of %s in the cache: %w", a.Address, err))
		return
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	err = write(cw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		k.warn(a, fmt.Errorf("keep the transcript of %s in the cache: %w", a.Address, err))
		return
	}
	if old, loaded := k.docs.Swap(a.Address, docFile{path: f.Name(), sha: hex.EncodeToString(h.Sum(nil)), size: cw.n}); loaded {
		os.Remove(old.(docFile).path)
	}
}

// keep stores the outputs a recorded (res) under its fingerprint, then
// pushes them. A restore from the local cache is only pushed (the remote
// may lack it); one from the remote needs neither.
func (k *keeper) keep(a *planner.Action, res *state.Resource) {
	if k == nil || a.Desired == nil || res.Status == state.StatusPending || len(res.Outputs) == 0 {
		return
	}
	fp := a.Desired.Fingerprint
	if a.Type == planner.Restore {
		if a.RestoreFrom == "local" {
			k.push(a, fp)
		}
		return
	}
	e, paths := Entry(a.Desired.Kind, fp, res, k.dir)
	if d, ok := k.docs.LoadAndDelete(a.Address); ok {
		doc := d.(docFile)
		defer os.Remove(doc.path)
		if _, has := paths["json"]; !has {
			e.Files = append(e.Files, cache.File{Role: "json", SHA256: doc.sha, Size: doc.size})
			paths["json"] = doc.path
		}
	}
	if err := k.cache.Local.Store(e, paths); err != nil {
		k.warn(a, fmt.Errorf("keep %s in the cache: %w", a.Address, err))
		return
	}
	k.push(a, fp)
}

// Entry is the cache entry of the outputs res recorded for fingerprint fp
// of a resource of kind, with the path of each file below the manifest
// directory dir, by role: a synthesis's audio, an embedding's JSON, each
// transcript format.
func Entry(kind manifest.Kind, fp string, res *state.Resource, dir string) (*cache.Entry, map[string]string) {
	e := &cache.Entry{Version: cache.FormatVersion, Fingerprint: fp, Kind: string(kind), CreatedAt: time.Now().UTC(),
		Meta: cache.Meta{DurationSeconds: res.DurationSeconds, DetectedLanguage: res.DetectedLanguage, Model: res.Model}}
	paths := map[string]string{}
	for _, o := range res.Outputs {
		role := o.Format
		switch kind {
		case manifest.KindSynthesis:
			role = roleAudio
		case manifest.KindEmbedding:
			role = roleEmbedding
		}
		e.Files = append(e.Files, cache.File{Role: role, SHA256: o.SHA256, Size: o.Size})
		paths[role] = filepath.Join(dir, filepath.FromSlash(o.Path))
	}
	return e, paths
}

// push sends the entry fp to the remote in the background.
func (k *keeper) push(a *planner.Action, fp string) {
	if k.cache.Remote == nil {
		return
	}
	k.pushes.Go(func() error {
		if err := k.cache.Push(k.ctx, fp); err != nil {
			k.warn(a, fmt.Errorf("push %s to %s: %w; 'voxform push' sends it later", a.Address, k.cache.Remote, err))
		}
		return nil
	})
}

// wait returns once every push has ended.
func (k *keeper) wait() {
	if k == nil {
		return
	}
	k.pushes.Wait()
	k.docs.Range(func(addr, d any) bool { // of transcriptions that failed
		os.Remove(d.(docFile).path)
		k.docs.Delete(addr)
		return true
	})
}

func (k *keeper) warn(a *planner.Action, err error) {
	k.emit(Event{Kind: EventWarning, Address: a.Address, Err: err})
}

// countWriter counts what it writes.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
