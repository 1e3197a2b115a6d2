package manifest

// A Validator judges a manifest by the rules the language leaves to the
// service's documents: the JSON Schema and the documented enums and
// limits. Package schema holds the one voxform uses, schema.Validator.
// Load calls each method once: ValidateRaw with the parsed files before
// they are expanded, marking the blocks it refuses (Raw.MarkBroken) so
// that expansion skips them instead of reporting them again, and Check
// with the expanded manifest.
type Validator interface {
	ValidateRaw(raw *Raw) Diagnostics
	Check(m *Manifest, opts LoadOptions) Diagnostics
}

// Load is the one entry point for reading a manifest directory: it parses
// every *.yaml/*.yml file, has v validate them, expands variables,
// defaults, for_each and transcription inputs, and has v check the
// result. The diagnostics are sorted by position; the manifest is nil only
// when nothing could be read. Callers must not use the manifest for paid
// work when diags.HasErrors().
func Load(dir string, opts LoadOptions, v Validator) (*Manifest, Diagnostics) {
	raw, ds := Parse(dir, opts)
	if raw == nil {
		ds.Sort()
		return nil, ds
	}
	return loadRaw(raw, opts, v, ds)
}

// LoadSources is Load over file contents already in memory (names[i] holds
// srcs[i]); relative paths resolve against dir. Fuzz tests use it.
func LoadSources(dir string, names []string, srcs [][]byte, opts LoadOptions, v Validator) (*Manifest, Diagnostics) {
	raw, ds := ParseSources(dir, names, srcs)
	return loadRaw(raw, opts, v, ds)
}

// loadRaw validates, expands and checks a parsed manifest.
func loadRaw(raw *Raw, opts LoadOptions, v Validator, ds Diagnostics) (*Manifest, Diagnostics) {
	ds.Append(v.ValidateRaw(raw))
	m, eds := Expand(raw, opts)
	ds.Append(eds)
	if opts.Expanded != nil && !ds.HasErrors() {
		opts.Expanded()
	}
	ds.Append(v.Check(m, opts))
	ds.Sort()
	return m, ds
}
