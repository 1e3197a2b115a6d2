//go:build !race

package master_test

const raceEnabled = false
