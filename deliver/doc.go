// Package deliver is the model of a delivery profile: the rules a
// platform sets for the audio it takes (an IVR's 8 kHz mu-law WAV, ACX's
// audiobook MP3, a podcast's loudness), the built-in profiles with their
// sources, the canonical form a delivered output's fingerprint covers,
// and the verdict of each rule on what was measured.
//
// It is pure: no I/O and no project package. Mastering a file to a
// profile is audio/master's; running an encoder is audio/encode's; the
// manifest's deliver: and delivery_profiles: blocks are the manifest's.
//
// # Rules
//
// A profile states, each optional:
//
//   - Loudness: a target in LUFS (ITU-R BS.1770-4 integrated, gated) or as
//     RMS (dBFS, unweighted, over every sample of the file: what ACX and
//     ffmpeg's astats call RMS level), and the range that passes.
//   - Peak: a ceiling in dBTP (true peak, 4x oversampled) or dBFS (sample
//     peak).
//   - Noise floor: a ceiling in dBFS for the RMS of the quietest 500 ms
//     window of the file (ACX's measure).
//   - Format: sample rate, channels, container, codec, bit rate and its
//     mode (CBR or VBR).
//   - Head and tail: the silence (or room tone at a stated RMS level) at
//     the start and at the end, as a target and the range that passes.
//     Silence is what lies below HeadTailThreshold.
//   - Limits: longest duration, largest file.
package deliver
