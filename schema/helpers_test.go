package schema_test

import (
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// loadWithin loads dir, failing the test if the load takes longer than
// limit (the load is left running: a test that fails here must not wait
// for it).
func loadWithin(t *testing.T, limit time.Duration, dir string, opts manifest.LoadOptions) []string {
	t.Helper()
	type result struct{ ds manifest.Diagnostics }
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		_, ds := manifest.Load(dir, opts, schema.Validator{})
		done <- result{ds}
	}()
	select {
	case r := <-done:
		t.Logf("loaded in %v", time.Since(start).Round(time.Millisecond))
		var out []string
		for _, d := range r.ds {
			out = append(out, d.String())
		}
		return out
	case <-time.After(limit):
		t.Fatalf("load still running after %v", limit)
		return nil
	}
}
