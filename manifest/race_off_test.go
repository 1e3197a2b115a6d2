//go:build !race

package manifest_test

const raceSlowdown = 1
