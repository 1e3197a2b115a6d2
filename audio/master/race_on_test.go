//go:build race

package master_test

// The race detector slows mastering's sample loops some thirtyfold, and
// mastering runs in one goroutine: under it, the tests that master long
// or many files (heavy) run in scripts/test.sh's last pass instead,
// without the detector.
const raceEnabled = true
