package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TakeRow is one take of an address as 'voxform takes' lists it.
type TakeRow struct {
	// N numbers the takes of the address from 1, oldest first.
	N int
	state.Take
	// Cached says the local output cache holds every output of the take.
	Cached bool
	// Current says the take is the resource's recorded output now.
	Current bool
}

// Takes lists the takes of addr: those the takes journal records (each
// bytes-and-request once, at its first time), and the state's current
// output when the journal lacks it (made before the journal, or on
// another machine). skipped counts journal lines that could not be read.
// c is the output cache asked whether it still holds each (nil: none).
func Takes(dir string, st *state.File, c *cache.Cache, addr string) (rows []TakeRow, skipped int, err error) {
	takes, skipped, err := state.ReadTakes(dir, addr)
	if err != nil {
		return nil, 0, err
	}
	var cur *state.Take
	if r, ok := st.Resources[addr]; ok && r.Status == state.StatusComplete && len(r.Outputs) > 0 {
		t := state.TakeOf(addr, r, r.UpdatedAt)
		cur = &t
	}
	add := func(t state.Take) {
		for _, r := range rows {
			if r.Same(t) {
				return
			}
		}
		rows = append(rows, TakeRow{N: len(rows) + 1, Take: t, Cached: cachedTake(c, t), Current: cur != nil && cur.Same(t)})
	}
	for _, t := range takes {
		add(t)
	}
	if cur != nil {
		add(*cur)
	}
	return rows, skipped, nil
}

// cachedTake reports whether c's local cache holds every output of t.
func cachedTake(c *cache.Cache, t state.Take) bool {
	if c == nil {
		return false
	}
	for _, o := range t.Outputs {
		r, err := c.Local.OpenBlob(o.SHA256, o.Size)
		if err != nil {
			return false
		}
		r.Close()
	}
	return true
}

// OpenCache opens the output cache of m as plan opens it in mode (the
// emulator's apart, see Workspace.Emulated).
func (w *Workspace) OpenCache(ctx context.Context, m *manifest.Manifest, mode string) (*cache.Cache, error) {
	return w.openCache(ctx, Settings(m), mode)
}

// pickTake finds sel among rows: a take's number, or a prefix of its
// fingerprint (at least 4 hex digits) that names one take.
func pickTake(addr string, rows []TakeRow, sel string) (TakeRow, error) {
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 || n > len(rows) {
			return TakeRow{}, fmt.Errorf("use %s: no take %d; it has %d (voxform takes %s lists them)", addr, n, len(rows), addr)
		}
		return rows[n-1], nil
	}
	if len(sel) < 4 || strings.Trim(strings.ToLower(sel), "0123456789abcdef") != "" {
		return TakeRow{}, fmt.Errorf("use %s: take %q: want a take's number or at least 4 hex digits of its fingerprint", addr, sel)
	}
	var found []TakeRow
	for _, r := range rows {
		if strings.HasPrefix(r.Fingerprint, strings.ToLower(sel)) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return TakeRow{}, fmt.Errorf("use %s: no take's fingerprint starts with %s (voxform takes %s lists them)", addr, sel, addr)
	case 1:
		return found[0], nil
	}
	return TakeRow{}, fmt.Errorf("use %s: %s names %d takes (%d and %d, ...); give more of the fingerprint or the take's number", addr, sel, len(found), found[0].N, found[1].N)
}

// Use puts an earlier take of addr back, byte for byte, from the local
// output cache, with no call to the service, and records it as the
// resource's output under its current desired fingerprint and request
// (the next plan shows no change), with origin take and the take's
// fingerprint (an imported take stays imported: its bytes are kept under
// their content key, see state.Resource.CacheKey). Nothing is written to
// the cache: the take's entry is there already, and push sends it. It returns the take put back (unchanged: it was the
// current output already). Refused when the cache no longer holds the
// take, or the take's outputs are not those the resource declares.
func (s *Session) Use(ctx context.Context, m *manifest.Manifest, addr, sel string) (TakeRow, bool, error) {
	if err := s.open(); err != nil {
		return TakeRow{}, false, err
	}
	want, err := s.desired(m)
	if err != nil {
		return TakeRow{}, false, err
	}
	d, ok := want[addr]
	if !ok {
		return TakeRow{}, false, fmt.Errorf("use %s: not declared in the manifest", addr)
	}
	if err := executor.Adoptable(d); err != nil {
		return TakeRow{}, false, fmt.Errorf("use %s: %w", addr, err)
	}
	c, err := s.ws.openCache(ctx, Settings(m), planner.CacheLocal)
	if err != nil {
		return TakeRow{}, false, err
	}
	rows, _, err := Takes(s.ws.Dir, s.st, c, addr)
	if err != nil {
		return TakeRow{}, false, err
	}
	t, err := pickTake(addr, rows, sel)
	if err != nil {
		return TakeRow{}, false, err
	}
	prior := s.st.Resources[addr]
	if t.Current && prior.Fingerprint == d.Fingerprint {
		return t, false, nil
	}
	ad, err := s.takeAdoption(c, d, prior, t)
	if err != nil {
		return t, false, fmt.Errorf("use %s: %w", addr, err)
	}
	if _, err := executor.Adopt(ctx, executor.Options{Dir: s.ws.Dir, Recorder: s.rec, Hashes: s.cache}, ad); err != nil {
		return t, false, fmt.Errorf("use %s: %w", addr, err)
	}
	return t, true, nil
}

// takeAdoption is the adoption of take t as the output of d.
func (s *Session) takeAdoption(c *cache.Cache, d *planner.Desired, prior *state.Resource, t TakeRow) (executor.Adoption, error) {
	if len(t.Outputs) != 1 || t.Outputs[0].Format != d.Outputs[0].Format {
		return executor.Adoption{}, fmt.Errorf("take %d has other outputs than the ones %s declares", t.N, d.Address)
	}
	o := t.Outputs[0]
	if !t.Cached {
		return executor.Adoption{}, fmt.Errorf("the output cache %s no longer holds take %d (fingerprint %.12s, sha256 %.12s)", c.Local.Dir(), t.N, t.Fingerprint, o.SHA256)
	}
	rel := d.Outputs[0].Path
	replace := ""
	at, err := s.cache.Hash(filepath.FromSlash(rel))
	if err != nil {
		return executor.Adoption{}, err
	}
	if at.Exists {
		rec, ok := recordedAt(prior, rel)
		if !ok || rec != at.SHA256 {
			return executor.Adoption{}, fmt.Errorf("%s holds a file voxform did not record there; move it away first", rel)
		}
		replace = at.SHA256
	}
	origin, take := state.OriginTake, t.Fingerprint
	if t.Origin == state.OriginImported {
		// An imported file is no request's answer: put back, it is imported
		// still, its cache key its content (state.Resource.CacheKey).
		origin, take = state.OriginImported, ""
	}
	return executor.Adoption{Desired: d, Prior: prior, Replace: replace, Origin: origin, Take: take,
		Fill: func(dst *os.File) error {
			err := c.Local.CopyBlob(o.SHA256, dst)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the output cache no longer holds take %d: %w", t.N, err)
			}
			return err
		}}, nil
}

// recordedAt is the content r records at the output path rel.
func recordedAt(r *state.Resource, rel string) (string, bool) {
	if r == nil {
		return "", false
	}
	for _, o := range r.Outputs {
		if o.Path == rel {
			return o.SHA256, true
		}
	}
	return "", false
}
