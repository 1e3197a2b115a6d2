//go:build !race

package audio_test

const raceEnabled = false
