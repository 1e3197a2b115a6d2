package audio_test

import (
	"github.com/voxform/voxform/audio/internal/audiotest"
)

// The helpers these tests share with the tests of audio's subpackages
// (package audiotest), under the names the tests use.
var (
	requireTool = audiotest.RequireTool
	run         = audiotest.Run
	writeFile   = audiotest.WriteFile
	ffmpegMake  = audiotest.FFmpegMake
	ffprobe     = audiotest.FFprobe
	absDur      = audiotest.AbsDur
	probeSeeds  = audiotest.ProbeSeeds
	wavSeeds    = audiotest.WAVSeeds
	oggSeed     = audiotest.OggSeed
	amrFile     = audiotest.AMRFile
	mp3Frame    = audiotest.MP3Frame
	mp3Frames   = audiotest.MP3Frames
	vbriFrame   = audiotest.VBRIFrame
	xingFrame   = audiotest.XingFrame
	concat      = audiotest.Concat
	ramp        = audiotest.Ramp
	chunk       = audiotest.Chunk
	riff        = audiotest.RIFF
	fmtBody     = audiotest.FmtBody
	extensible  = audiotest.Extensible

	mono16k  = audiotest.Mono16k
	stereo48 = audiotest.Stereo48
	mulaw8k  = audiotest.MuLaw8k
	alaw8k   = audiotest.ALaw8k
	float22  = audiotest.Float22
	u8mono   = audiotest.U8Mono
)

type probeResult = audiotest.ProbeResult
