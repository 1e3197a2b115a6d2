package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// ImportFile is an existing file to adopt as the output of the declared
// resource at Address ('voxform import').
type ImportFile struct {
	Address string
	// Path is the file, absolute (or relative to the working directory).
	Path string
}

// ImportOptions are the choices of an import.
type ImportOptions struct {
	// Force adopts a file for an address the state records already.
	Force bool
}

// Imported is what an import recorded for one file.
type Imported struct {
	ImportFile
	Output state.Output
	// InPlace says the file was already at the output path.
	InPlace bool
}

// desired builds the resources m declares, by address, hashing inputs
// through the session's hash cache.
func (s *Session) desired(m *manifest.Manifest) (map[string]*planner.Desired, error) {
	ds, err := planner.Build(m, s.cache.Hash)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*planner.Desired, len(ds))
	for _, d := range ds {
		out[d.Address] = d
	}
	return out, nil
}

// Import adopts each file as the output of its declared resource, with no
// call to the service: every file is checked first (declared, adoptable,
// not recorded unless force, its format the declared one, its output
// path free or holding it already), so that bad input changes nothing;
// then each is copied to its output path as apply writes outputs (or
// adopted in place), recorded under the desired fingerprint and request
// with origin imported, added to the takes journal, and kept in the
// local output cache under its content key (state.ContentKey), never
// under the request's fingerprint: 'voxform push' sends it on, so that a
// fresh clone's pull restores it.
func (s *Session) Import(ctx context.Context, m *manifest.Manifest, files []ImportFile, opts ImportOptions) ([]Imported, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	want, err := s.desired(m)
	if err != nil {
		return nil, err
	}
	ads := make([]executor.Adoption, len(files))
	seen := map[string]string{}
	for i, f := range files {
		if other, dup := seen[f.Address]; dup {
			return nil, fmt.Errorf("import %s: both %s and %s name it", f.Address, other, f.Path)
		}
		seen[f.Address] = f.Path
		if ads[i], err = s.adoption(want, f, opts.Force); err != nil {
			return nil, err
		}
	}
	warn := func(e executor.Event) {
		if e.Kind == executor.EventWarning && e.Err != nil {
			s.notify("warning: " + e.Err.Error())
		}
	}
	journal := state.NewTakesJournal(s.ws.Dir)
	defer journal.Close()
	out := make([]Imported, 0, len(files))
	keep, err := s.keepImported(ctx, m)
	if err != nil {
		return nil, err
	}
	defer keep.close()
	for i, f := range files {
		res, err := executor.Adopt(ctx, executor.Options{Dir: s.ws.Dir, Recorder: s.rec, Hashes: s.cache, Events: warn}, ads[i])
		if err != nil {
			return out, fmt.Errorf("import %s: %w", f.Address, err)
		}
		if err := journal.Append(state.TakeOf(f.Address, res, time.Now())); err != nil {
			s.notify(fmt.Sprintf("warning: %v", err))
		}
		keep.store(f.Address, string(ads[i].Desired.Kind), res)
		out = append(out, Imported{ImportFile: f, Output: res.Outputs[0], InPlace: ads[i].Replace == res.Outputs[0].SHA256})
	}
	return out, keep.close()
}

// importKeeper keeps imported outputs in the local output cache, through
// one batch (nil: the cache is off).
type importKeeper struct {
	s     *Session
	batch *cache.Batch
}

// keepImported opens the local output cache of m for an import's
// outputs.
func (s *Session) keepImported(ctx context.Context, m *manifest.Manifest) (*importKeeper, error) {
	c, err := s.ws.openCache(ctx, Settings(m), planner.CacheLocal)
	if err != nil || c == nil {
		return &importKeeper{s: s}, err
	}
	return &importKeeper{s: s, batch: c.Local.Batch()}, nil
}

// store keeps the outputs res records for addr under their content key.
// A failure is a warning: the import is recorded, and push keeps it
// later.
func (k *importKeeper) store(addr, kind string, res *state.Resource) {
	if k.batch == nil {
		return
	}
	e, paths := executor.Entry(manifest.Kind(kind), state.ContentKey(kind, res.Outputs), res, k.s.ws.Dir)
	if err := k.batch.Store(e, paths); err != nil {
		k.s.notify(fmt.Sprintf("warning: keep %s in the output cache: %v", addr, err))
	}
}

// close writes the entries stored (once; later calls do nothing).
func (k *importKeeper) close() error {
	if k.batch == nil {
		return nil
	}
	b := k.batch
	k.batch = nil
	if err := b.Close(); err != nil {
		return fmt.Errorf("keep the imported files in the output cache: %w", err)
	}
	return nil
}

// adoption checks the import of f and returns its adoption.
func (s *Session) adoption(want map[string]*planner.Desired, f ImportFile, force bool) (executor.Adoption, error) {
	fail := func(err error) (executor.Adoption, error) {
		return executor.Adoption{}, fmt.Errorf("import %s: %w", f.Address, err)
	}
	d, ok := want[f.Address]
	if !ok {
		return fail(errors.New("not declared in the manifest"))
	}
	prior := s.st.Resources[f.Address]
	if prior != nil && !force {
		return fail(errors.New("already recorded in the state (-force adopts the file over its record)"))
	}
	src, err := filepath.Abs(f.Path)
	if err != nil {
		return fail(err)
	}
	if err := regularFile(src); err != nil {
		return fail(err)
	}
	if err := executor.CheckAdopted(d, src); err != nil {
		return fail(err)
	}
	replace, err := s.replaceable(d, prior, src)
	if err != nil {
		return fail(err)
	}
	return executor.Adoption{Desired: d, Prior: prior, Replace: replace, Origin: state.OriginImported,
		Fill: func(dst *os.File) error { return copyFrom(src, dst) }}, nil
}

// replaceable is the content at d's output path that adopting src may
// replace: none when nothing is there; the file itself when it is src
// (or holds src's bytes: adopted in place); the output prior records.
// Any other file there is not voxform's to replace.
func (s *Session) replaceable(d *planner.Desired, prior *state.Resource, src string) (string, error) {
	rel := d.Outputs[0].Path
	at, err := s.cache.Hash(filepath.FromSlash(rel))
	if err != nil || !at.Exists {
		return "", err
	}
	sum, _, err := state.HashFile(src)
	if err != nil {
		return "", err
	}
	if sum == at.SHA256 {
		return at.SHA256, nil
	}
	if prior != nil {
		for _, o := range prior.Outputs {
			if o.Path == rel && o.SHA256 == at.SHA256 {
				return at.SHA256, nil
			}
		}
	}
	return "", fmt.Errorf("%s holds a file voxform did not make; move it away, or import that file", rel)
}

// regularFile refuses anything at path but a regular file (a named
// pipe, a device, a directory), without acting on it (owned.OpenRegular),
// and a file larger than the output cache keeps (cache.MaxEntryContent).
func regularFile(path string) error {
	f, err := owned.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > cache.MaxEntryContent {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d an output may have (cache.MaxEntryContent)", path, st.Size(), int64(cache.MaxEntryContent))
	}
	return nil
}

// copyFrom copies the regular file at src into dst.
func copyFrom(src string, dst *os.File) error {
	f, err := owned.OpenRegular(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(dst, f)
	return err
}

// notify tells the workspace's Notify, if any.
func (s *Session) notify(msg string) {
	if s.ws.Notify != nil {
		s.ws.Notify(msg)
	}
}

// journalTakes is the executor's Recorded hook that adds every new take
// an apply records to the takes journal of dir (then calls next, if
// set): a resource recorded with outputs other than its prior record's,
// or for another request. A journal that cannot be written is a warning
// through events (nil: none); the work is done and recorded. The journal
// is returned too, for the caller to close once the apply is over.
func journalTakes(dir string, next func(string, *state.Resource, *state.Resource), events func(executor.Event), now func() time.Time) (func(string, *state.Resource, *state.Resource), *state.TakesJournal) {
	j := state.NewTakesJournal(dir)
	if now == nil {
		now = time.Now
	}
	return func(addr string, prior, res *state.Resource) {
		t := state.TakeOf(addr, res, now())
		// A package is no take: its books are made again from its chapters.
		if len(t.Outputs) > 0 && (prior == nil || prior.Fingerprint != res.Fingerprint || state.OutputsDigest(prior.Outputs) != state.OutputsDigest(res.Outputs)) {
			if err := j.Append(t); err != nil && events != nil {
				events(executor.Event{Kind: executor.EventWarning, Address: addr, Err: err})
			}
		}
		if next != nil {
			next(addr, prior, res)
		}
	}, j
}
