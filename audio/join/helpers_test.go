package join

import (
	"github.com/voxform/voxform/audio/internal/audiotest"
)

// The helpers these tests share with the other audio packages' tests
// (package audiotest), under the names the tests use.
var (
	requireTool = audiotest.RequireTool
	run         = audiotest.Run
	writeFile   = audiotest.WriteFile
	ffprobe     = audiotest.FFprobe
	absDur      = audiotest.AbsDur
	ramp        = audiotest.Ramp
	mono16k     = audiotest.Mono16k
)
