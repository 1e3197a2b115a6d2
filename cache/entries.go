package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Found is a cached entry and where it is.
type Found struct {
	// From is "local" or the remote's name (Remote.String).
	From  string
	Entry *Entry
}

// Entries returns the entry of each fingerprint of fps that a cache
// holds, and where, as Fetch would take it: the local entry when the
// local cache holds it and every blob it lists, else the remote's, read
// from the remote (one request for each fingerprint the remote has, as
// RemoteHas says, remoteWorkers at once). Fingerprints found nowhere,
// invalid ones, and those whose remote entry is malformed are not in the
// map. A remote error is returned, naming the remote.
func (c *Cache) Entries(ctx context.Context, fps []string) (map[string]Found, error) {
	out := make(map[string]Found, len(fps))
	local := c.Local.HasEntries(fps)
	var rest []string
	for _, fp := range fps {
		if !ValidKey(fp) {
			continue
		}
		if local[fp] {
			if e, err := c.Local.Entry(fp); err == nil && e != nil && c.Local.missingBlobs(e) == 0 {
				out[fp] = Found{From: "local", Entry: e}
				continue
			}
		}
		rest = append(rest, fp)
	}
	if c.Remote == nil || len(rest) == 0 {
		return out, nil
	}
	has, err := c.RemoteHas(ctx, rest)
	if err != nil {
		return nil, fmt.Errorf("look up cache entries: %w", err)
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(remoteWorkers)
	for _, fp := range rest {
		if !has[fp] {
			continue
		}
		g.Go(func() error {
			e, err := c.Remote.Entry(gctx, fp)
			switch {
			case errors.Is(err, ErrCorrupt), err == nil && e == nil:
				return nil
			case err != nil:
				return fmt.Errorf("read cache entry %s: %w", fp, err)
			}
			mu.Lock()
			out[fp] = Found{From: c.Remote.String(), Entry: e}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
