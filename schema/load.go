package schema

import (
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// Load is the one entry point for reading a manifest directory: it parses
// every *.yaml/*.yml file, validates each against the JSON Schema, expands
// variables, defaults, for_each and transcription inputs, and applies every
// semantic rule of the service documents. The diagnostics are sorted by
// position; the manifest is nil only when nothing could be read. Callers
// must not use the manifest for paid work when diags.HasErrors().
func Load(dir string, opts manifest.LoadOptions) (*manifest.Manifest, manifest.Diagnostics) {
	raw, ds := manifest.Parse(dir, opts)
	if raw == nil {
		ds.Sort()
		return nil, ds
	}
	return loadRaw(raw, opts, ds)
}

// LoadSources is Load over file contents already in memory (names[i] holds
// srcs[i]); relative paths resolve against dir. Fuzz tests use it.
func LoadSources(dir string, names []string, srcs [][]byte, opts manifest.LoadOptions) (*manifest.Manifest, manifest.Diagnostics) {
	raw, ds := manifest.ParseSources(dir, names, srcs)
	return loadRaw(raw, opts, ds)
}

func loadRaw(raw *manifest.Raw, opts manifest.LoadOptions, ds manifest.Diagnostics) (*manifest.Manifest, manifest.Diagnostics) {
	ds.Append(ValidateRaw(raw))
	m, eds := manifest.Expand(raw, opts)
	ds.Append(eds)
	ds.Append(Check(m, opts))
	ds.Sort()
	return m, ds
}

// CatalogFor returns the built-in catalog of the manifest's profile (the
// default profile's for a nil manifest or an unknown profile, which
// validation reports) extended by its catalog: block.
func CatalogFor(m *manifest.Manifest) *contract.Catalog {
	c := contract.BuiltinFor(profileOf(m))
	if m != nil {
		c.Extend(contract.Extension{Models: m.Catalog.Models, Voices: m.Catalog.Voices,
			Languages: m.Catalog.Languages, RecognitionLanguages: m.Catalog.RecognitionLanguages})
	}
	return c
}

// profileOf is the manifest's profile, or the default one.
func profileOf(m *manifest.Manifest) contract.Profile {
	if m == nil {
		return contract.DefaultProfile
	}
	p, err := contract.ParseProfile(string(m.Service.Profile))
	if err != nil {
		return contract.DefaultProfile
	}
	return p
}
