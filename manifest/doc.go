// Package manifest loads a manifest directory: every *.yaml and *.yml file in
// it is parsed, merged, interpolated and expanded (variables, defaults,
// for_each, transcription input globs) into typed resources with addresses.
// Every value keeps its source position so that problems are reported as
// file:line:col diagnostics, all of them at once, never as a panic.
//
// Parse (or ParseSources) reads and merges the files into a Raw; Expand
// turns a Raw into a Manifest. Most callers want schema.Load, which adds
// the JSON Schema and the semantic rules of the service documents around
// these two steps. Diagnostics, Diagnostic and Pos are the shared vocabulary
// of problems with positions.
package manifest
