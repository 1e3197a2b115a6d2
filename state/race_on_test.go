//go:build race

package state

// The race detector slows JSON work tenfold: the crash test does fewer runs.
const raceEnabled = true
