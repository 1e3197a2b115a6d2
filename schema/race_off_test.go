//go:build !race

package schema_test

const raceSlowdown = 1
