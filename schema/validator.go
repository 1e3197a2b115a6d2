package schema

import (
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// Validator is the manifest.Validator voxform loads every manifest with
// (manifest.Load(dir, opts, schema.Validator{})): the JSON Schema over the
// parsed files, then every semantic rule of the service documents over the
// expanded manifest. It holds nothing; its zero value is ready.
type Validator struct{}

// Check applies every semantic rule of SPEC section 3 and the service
// documents to an expanded manifest and returns the problems found.
func (Validator) Check(m *manifest.Manifest, opts manifest.LoadOptions) manifest.Diagnostics {
	if m == nil {
		return nil
	}
	return check(m, opts).ds
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
