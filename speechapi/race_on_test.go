//go:build race

package speechapi_test

// The race detector drops pooled buffers at random: the tests of what a
// pool saves run without it (scripts/test.sh runs them once more so).
const raceEnabled = true
