//go:build !race

package speechapi_test

const raceEnabled = false
