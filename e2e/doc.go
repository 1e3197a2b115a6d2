// Package e2e holds voxform's end-to-end tests: the voxform binary, built
// once, run as a separate process against an emulator listening on a
// loopback port, with the emulator's statistics proving what was (and was
// not) called. They prove the promises of SPEC sections 4 to 6 and the
// reliability list of section 11: a second apply with nothing changed calls
// nothing, an edit redoes exactly what changed, faults and kill -9 at any
// instant converge to verified outputs without paying twice, an interrupt
// leaves batch jobs pending and resumable, and the API key is written
// nowhere.
package e2e
