package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// DeliveryCheck is one delivered output as CheckDeliveries found it: the
// file measured (master.Measure) and judged by every rule of the profile
// the manifest declares now (deliver.Check).
type DeliveryCheck struct {
	Address string `json:"address"`
	Path    string `json:"path"`
	Profile string `json:"profile"`
	// Unmade says why the file could not be measured: not delivered
	// (not recorded), missing, or not readable as audio. Empty when it
	// was measured.
	Unmade   string            `json:"unmade,omitempty"`
	Measured *deliver.Measured `json:"measured,omitempty"`
	Results  []deliver.Result  `json:"results,omitempty"`
	Pass     bool              `json:"pass"`
}

// Failed returns the rules c fails.
func (c *DeliveryCheck) Failed() []deliver.Result { return deliver.Failed(c.Results) }

// CheckDeliveries measures every delivered output the manifest declares,
// in address order, and judges it by its profile's rules as declared
// now. A declared delivery the state does not record fails as not
// delivered. Files are read only as the file system resolves them inside
// the manifest directory; enc decodes what voxform does not (AAC).
func (w *Workspace) CheckDeliveries(ctx context.Context, m *manifest.Manifest, st *state.File, enc master.Encoder) ([]DeliveryCheck, error) {
	root, err := owned.Open(w.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var checks []DeliveryCheck
	var profiles []*deliver.Profile
	for _, s := range m.Syntheses {
		r := st.Resources[s.Address]
		for _, dl := range s.Details().Deliver {
			c := DeliveryCheck{Address: s.Address, Path: dl.Output, Profile: dl.Profile.Name}
			if o, ok := recordedDelivery(r, dl.Profile.Name); !ok {
				c.Unmade = "not delivered: 'voxform apply' makes it"
			} else {
				c.Path = o.Path
			}
			checks = append(checks, c)
			profiles = append(profiles, dl.Profile)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range checks {
		c, p := &checks[i], profiles[i]
		if c.Unmade != "" {
			continue
		}
		g.Go(func() error { return w.measureDelivery(gctx, root, c, p, enc) })
	}
	return checks, g.Wait()
}

// measureDelivery measures c's file and judges it by p.
func (w *Workspace) measureDelivery(ctx context.Context, root *owned.Root, c *DeliveryCheck, p *deliver.Profile, enc master.Encoder) error {
	if _, err := root.Resolve(c.Path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.Unmade = "missing"
			return nil
		}
		return fmt.Errorf("check delivery %s: %w", c.Path, err)
	}
	m, err := master.Measure(ctx, filepath.Join(w.Dir, filepath.FromSlash(c.Path)), enc)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, fs.ErrNotExist):
		c.Unmade = "missing"
		return nil
	case err != nil:
		c.Unmade = err.Error()
		return nil
	}
	c.Measured = &m
	c.Results = deliver.Check(p, m)
	c.Pass = len(deliver.Failed(c.Results)) == 0
	return nil
}

// recordedDelivery is r's recorded output delivered to profile.
func recordedDelivery(r *state.Resource, profile string) (state.Output, bool) {
	if r == nil || r.Status != state.StatusComplete {
		return state.Output{}, false
	}
	for _, o := range r.Outputs {
		if o.Format == planner.DeliverFormat(profile) {
			return o, true
		}
	}
	return state.Output{}, false
}
