//go:build race

package schema_test

// raceSlowdown is how much slower the race detector makes the loader.
const raceSlowdown = 4
