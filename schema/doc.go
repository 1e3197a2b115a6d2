// Package schema holds the manifest's JSON Schema (embedded, also published
// as schema/manifest.schema.json for editors), the service catalog as data
// (models, voices, languages per model and per recognition API, audio tags,
// containers, encodings and aliases, sample rates, bitrates, limits), and
// the semantic validation of a loaded manifest against everything the
// service documents.
//
// Load is the one entry point for reading a manifest: YAML, JSON Schema,
// expansion and semantic rules, with every problem returned as a sorted,
// positioned diagnostic. Catalog data comes from Builtin, extended by a
// manifest's catalog: block with CatalogFor.
//
// The checks take time linear in the manifest, whatever it fans out: a
// text from one source (a variable, a default, a data value) is checked
// once however many syntheses use it, texts are scanned in one pass each,
// and warnings about places inside texts stop at MaxTextWarnings.
package schema
