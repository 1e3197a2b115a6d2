// Package master masters a synthesis's audio to a delivery profile
// (package deliver) and measures a delivered file against it.
//
// Mastering (Master, MasterPCM) is local and deterministic: the source is
// decoded with audio/loudness's decoders (WAV, MP3, Ogg Opus, headerless
// PCM, mu-law and A-law), mixed to the profile's channels, resampled to
// its rate (audio.Resampler), brought to its loudness target (LUFS or
// RMS) by a gain, held under its peak ceiling by a lookahead limiter
// (true peak detected on the 4x-oversampled signal, or sample peak),
// trimmed of the silence at its ends and padded with exactly the
// profile's head and tail of digital silence or room tone, then written
// as a WAV file (Go writes 16- and 24-bit PCM, mu-law and A-law) or
// handed to an Encoder for MP3, AAC and Opus. The mastered file is then
// measured (Measure) and checked (deliver.Check): a file that misses a
// rule is an error naming each rule, and is removed.
//
// Memory is bounded whatever the length: every pass streams the source
// through filters holding a few milliseconds of audio (run.go explains
// the passes). The source is decoded and resampled once, by the first
// pass, which keeps what it read in a scratch file beside the mastering's
// other temporary files (8 bytes a sample: about 1.4 GB an hour of
// 48 kHz mono; kept.go); the later passes read that file. A source read
// as it is (PCM WAV or headerless audio at the profile's rate) is read
// again instead, and so is any source when the scratch file cannot be
// made or written.
//
// The gain and the limiter act after the mixing and resampling, on the
// signal at the delivered rate and channels, so that the peaks limited are
// the delivered ones (resampling and mixing move peaks). An encoder moves
// loudness and peaks too (LAME took 0.27 dB of RMS off at 192 kbps and
// 0.45 at 128, on speech and on a sine alike): Master measures the encoded
// file and, when its loudness is more than 0.1 dB off the target or a peak
// is over the ceiling, masters again with the target moved by the
// difference or the ceiling lowered by the overshoot (twice at most).
//
// Measuring (Measure) reads a delivered file as ffmpeg's ebur128 and
// astats filters do; its tests compare the two.
package master
