//go:build race

package loudness_test

// The race detector slows the meter's filter loops some thirtyfold, and
// the meter runs in one goroutine: under it, the long signal tests run
// at fewer rates and lengths.
const raceEnabled = true
