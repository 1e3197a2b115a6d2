package join

// The joiners NewJoiner picks, under the names the fuzz tests use.
var (
	NewMP3Joiner  = newMP3Joiner
	NewOpusJoiner = newOpusJoiner
)
