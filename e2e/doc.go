// Package e2e holds voxform's end-to-end tests: the voxform binary, built
// once, run as a separate process against an emulator listening on a
// loopback port, with the emulator's statistics proving what was (and was
// not) called. They prove the promises of SPEC sections 4 to 6 and the
// reliability list of section 11: the README's first command works with no
// account, a second apply with nothing changed calls nothing, an edit
// redoes exactly what changed (renames are free, damaged outputs are
// repaired, a new reference recording replaces its cloned voice), faults
// and kill -9 aimed at every phase of an apply converge to verified outputs
// without paying twice, each Ctrl-C stage does what it promises to the
// calls in flight, an interrupt leaves batch jobs pending and resumable,
// and the API key is written nowhere.
package e2e
