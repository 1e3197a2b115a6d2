// Package manifest loads a manifest directory: every *.yaml and *.yml file in
// it is parsed, merged, interpolated and expanded (variables, defaults,
// for_each, transcription input globs) into typed resources with addresses.
// Every value keeps its source position so that problems are reported as
// file:line:col diagnostics, all of them at once, never as a panic.
package manifest
