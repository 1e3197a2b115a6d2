package manifest_test

import (
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// Loading and validating a for_each makes a bounded number of allocations
// for each row (the plan of 100,000 loads one on its critical path): a
// row's cells, its synthesis, its text, output and address, not the
// builders and maps that grew row by row.
func TestLoadForEachAllocationsPerRow(t *testing.T) {
	allocs := func(n int) float64 {
		dir := bigManifest(t, n)
		return testing.AllocsPerRun(2, func() {
			m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
			if ds.HasErrors() || len(m.Syntheses) != n {
				t.Fatalf("load: %v", ds)
			}
		})
	}
	const n = 2000
	perRow := (allocs(2*n) - allocs(n)) / n
	if perRow > 12.5 {
		t.Errorf("%.2f allocations a for_each row; want at most 12.5", perRow)
	}
	t.Logf("%.2f allocations a row", perRow)
}
