//go:build !race

package loudness_test

const raceEnabled = false
