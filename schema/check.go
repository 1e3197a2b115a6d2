package schema

import (
	"hash/maphash"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// checker applies the semantic rules to an expanded manifest.
type checker struct {
	m       *manifest.Manifest
	profile contract.Profile
	cat     *contract.Catalog
	opts    manifest.LoadOptions
	ds      manifest.Diagnostics
	// forcedAC holds the 8000 Hz copies of shared audio configs.
	forcedAC map[*manifest.AudioConfig]*manifest.AudioConfig
	// texts holds the texts checked (see checkedBefore), whose spans are
	// hashed with seed; textWarnings counts the warnings about places
	// inside texts (see MaxTextWarnings).
	texts        map[textKey]bool
	seed         maphash.Seed
	textWarnings int
	// sg answers every "did you mean" of the checks; embeddings lists the
	// embeddings' names for it.
	sg         manifest.Suggester
	embeddings []string
	// done, acDone and models remember the checks made once (see once),
	// audio configs checked and models found (see audioConfigOnce, model).
	done   map[onceKey]bool
	acDone map[acKey]acResult
	models map[string]*contract.Model
	// realOuts maps outputs by real path, for recordings (outputsByReal).
	realOuts map[string]output
}

// check runs the checks and returns the checker, with what it found and
// what it remembers.
func check(m *manifest.Manifest, opts manifest.LoadOptions) *checker {
	c := &checker{m: m, profile: profileOf(m), cat: CatalogFor(m), opts: opts, forcedAC: map[*manifest.AudioConfig]*manifest.AudioConfig{},
		texts: make(map[textKey]bool, len(m.Syntheses)), seed: maphash.MakeSeed(), done: map[onceKey]bool{}, acDone: map[acKey]acResult{},
		models: map[string]*contract.Model{}}
	c.checkService()
	c.checkCache()
	c.checkCatalog()
	c.checkBudget()
	c.checkLoudness()
	c.checkVoices()
	c.checkEmbeddings()
	c.checkSyntheses()
	c.checkTranscriptions()
	c.checkPackages()
	c.checkPaths()
	return c
}

// modelName is a synthesis model's name in diagnostics: as the profile
// sends it (timbre-v2.5 under live, tts-v2.5 under documented); the
// manifest may spell it either way.
func (c *checker) modelName(canonical string) string { return c.profile.WireModel(canonical) }
