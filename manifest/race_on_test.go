//go:build race

package manifest_test

// raceSlowdown is how much slower the race detector makes the loader.
const raceSlowdown = 4
