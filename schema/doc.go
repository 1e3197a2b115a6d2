// Package schema is the validator of manifests: the manifest's JSON Schema
// (embedded, also published as schema/manifest.schema.json for editors)
// and the rules of the service documents, its enums and its limits, as
// the contract package holds them (models, voices, languages, audio tags,
// containers, encodings, sample rates, file sizes).
//
// Validator is the manifest.Validator that manifest.Load is given: it
// checks the parsed files against the JSON Schema, mapping each error back
// to its YAML position, and then the expanded manifest against the
// catalog of its profile, extended by its catalog: block (CatalogFor).
// schema reads manifests only through their types; reading, merging and
// expanding them is package manifest's. ExplainLexicons says what each
// synthesis's lexicon does to its text, for validate -explain. Delivered
// files (deliver:) and package files (packages:) are outputs like any
// other in the one output check (checkPaths), and a delivery or a
// package chapter needs audio voxform decodes (check_deliver.go).
//
// The checks take time linear in the manifest, whatever it fans out: a
// text from one source (a variable, a default, a data value) is checked
// once however many syntheses use it, texts are scanned in one pass each,
// and warnings about places inside texts stop at MaxTextWarnings.
package schema
