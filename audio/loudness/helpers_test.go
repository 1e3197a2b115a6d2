package loudness_test

import (
	"github.com/voxform/voxform/audio/internal/audiotest"
)

// The helpers these tests share with the other audio packages' tests
// (package audiotest), under the names the tests use.
var (
	requireTool = audiotest.RequireTool
	run         = audiotest.Run
	writeFile   = audiotest.WriteFile
	ffmpegMake  = audiotest.FFmpegMake
	probeSeeds  = audiotest.ProbeSeeds
)
