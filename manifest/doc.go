// Package manifest loads a manifest directory: every *.yaml and *.yml file in
// it is parsed, merged, interpolated and expanded (variables, defaults,
// for_each, transcription input globs) into typed resources with addresses.
// Every value keeps its source position so that problems are reported as
// file:line:col diagnostics, all of them at once, never as a panic.
//
// Load is the one entry point for reading a manifest: Parse (or
// ParseSources) reads and merges the files into a Raw, Expand turns a Raw
// into a Manifest, and between and after the two the Validator it is given
// judges them by what the language leaves to the service's documents (the
// JSON Schema, the enums and limits: schema.Validator). LoadBackend reads
// and checks the backend: block alone, for the commands that must know
// where the state is first. Diagnostics, Diagnostic and Pos are the shared
// vocabulary of problems with positions.
//
// What the loader reads is bounded, so that a hostile manifest is refused
// with a positioned error instead of taking minutes or all the memory: the
// size of each manifest file, -var-file and for_each data file
// (MaxManifestBytes, MaxDataBytes, MaxDocumentDataBytes), what one YAML
// document reaches through aliases and merge keys (MaxAliasNodes,
// MaxAliasBytes; a recursive alias is refused), the file names matched
// against transcription input patterns (MaxGlobMatches), and what
// expansion fans out: the bytes of values copied into resources by
// variables, defaults and for_each (MaxExpandedBytes), the syntheses
// (MaxSyntheses), the names a catalog: block adds (MaxCatalogNames), and
// each text with its lexicon applied (MaxSpokenTextBytes; what lexicons
// add, all texts together, MaxLexiconAddedBytes), measured without making
// the text.
//
// Every file it reads (a manifest, a -var-file, a for_each data file, a
// text_file, a lexicon) is opened by owned.Root.OpenInput: a name spelled
// inside the manifest directory must resolve inside it (a symbolic link
// out of it is refused unread), a name spelled outside it (absolute, or
// through ..) names an outside file explicitly, and only a regular file is
// read. A *.yaml that is a symbolic link is never read as a manifest, and
// a *.yaml named as data (for_each, -var-file, lexicon, text_file) is data.
// A transcription's inputs are globbed, not read: a pattern's directory
// prefix must really lie inside the manifest directory or a directory the
// block names under input_dirs, and each matched input is opened, when
// schema checks it and when apply sends it, by owned.Root.OpenInputWithin.
// "Did you mean" compares at most MaxSuggestCompares names per load, and
// errors repeated by every instance of a block are reported once.
//
// The delivery language is the manifest's too (profiles.go, deliver.go,
// packages.go): delivery_profiles: builds custom deliver.Profile values
// from a built-in base, each deliver.Validate problem reported at the
// field it names; deliver: (on a synthesis or in defaults) is evaluated
// once per value, like listen:, and each instance places its delivered
// files (DefaultDelivered); packages: declares books from declared
// syntheses, their cover read as a text_file is and bound into the hash.
// Its bounds are MaxDeliveries, MaxDeliveryProfiles, MaxPackages,
// MaxChapters, MaxTitleChars and MaxCoverBytes. Whether a delivered or
// package file collides with another output, and whether a synthesis's
// audio can be decoded for mastering, are the schema's checks.
package manifest
