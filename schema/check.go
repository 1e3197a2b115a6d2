package schema

import (
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// checker applies the semantic rules to an expanded manifest.
type checker struct {
	m    *manifest.Manifest
	cat  *contract.Catalog
	opts manifest.LoadOptions
	ds   manifest.Diagnostics
	// forcedAC holds the 8000 Hz copies of shared audio configs.
	forcedAC map[*manifest.AudioConfig]*manifest.AudioConfig
}

// Check applies every semantic rule of SPEC section 3 and the service
// documents to an expanded manifest and returns the problems found.
func Check(m *manifest.Manifest, opts manifest.LoadOptions) manifest.Diagnostics {
	if m == nil {
		return nil
	}
	c := &checker{m: m, cat: CatalogFor(m), opts: opts, forcedAC: map[*manifest.AudioConfig]*manifest.AudioConfig{}}
	c.checkService()
	c.checkCatalog()
	c.checkBudget()
	c.checkVoices()
	c.checkEmbeddings()
	c.checkSyntheses()
	c.checkTranscriptions()
	c.checkPaths()
	return c.ds
}
