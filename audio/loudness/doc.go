// Package loudness measures the loudness of audio as ITU-R BS.1770-4 and
// EBU R 128 define it: integrated loudness in LUFS and true peak in dBTP
// (Loudness), the one measurement voxform records of every audio output.
//
// It measures a finished file (MeasureLoudnessFile, MeasureLoudnessReader:
// WAV in every encoding package audio reads, MP3 of every MPEG version of
// layer III, Ogg Opus; headerless audio given its audio.Format), or a file
// while it is written elsewhere (LoudnessWriter), in one pass, with memory
// fixed by the channel count whatever the length. Audio voxform
// recognises but cannot decode gives a *NoDecoderError, which matches
// audio.ErrUnsupported.
//
// Its figures match ffmpeg's ebur128 filter (loudness_test.go and
// ffmpeg_test.go compare them): the gating and K-weighting of BS.1770-4
// for every rate from 8 kHz (loudness.go), true peak oversampled to at
// least 192 kHz (peak.go), the MP3 encoder delay and padding a LAME tag
// records cut as ffmpeg's decoder cuts them (mp3.go), and Ogg Opus
// decoded with github.com/pion/opus, pre-skip, output gain and end trim
// applied as ffmpeg applies them (ogg.go). One decoder serves every use
// (openSamples, measure.go).
//
// It also renders a file for the listening check (Render, render.go): the
// audio decoded by the same decoders, channels averaged, resampled to at
// most the rate asked (16 kHz in use) and written as a mono 16-bit PCM WAV
// file that speech recognition takes, with the file's loudness and the
// silence at its ends (edges.go) measured in the same pass. Rendering
// lives here, not in a package of its own, because it reads through this
// package's decoders and meter in the same pass.
//
// Mastering (package audio/master) reads and measures through the same
// decoders, meter and edge rule, which shared.go exports for it
// (OpenSamples, Meter, Edges): a delivered file is decoded and measured
// as every other output is.
package loudness
