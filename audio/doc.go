// Package audio sniffs containers, probes durations, reads and writes WAV,
// converts between PCM, mu-law and A-law, resamples, decodes WAV and MP3
// to samples, and joins whole files into one: WAV RIFF-aware, raw audio
// byte for byte, MP3 by frames, Ogg Opus as one logical stream (Joiner).
// Everything works on streams; nothing reads a whole file into memory
// unless the caller hands it a buffer (ParseWAV and WAVJoiner.Add take one
// piece at a time).
//
// Where things are:
//
//   - package audio/ogg: the Ogg page codec (read, parse, write, CRC),
//     used by probing (probe_ogg.go), loudness (loudness_ogg.go) and the
//     Opus joiner (join_opus.go);
//   - package audio/internal/mp3: the MP3 decoder;
//   - sniff.go, probe*.go, validate.go: what a file is, how long, whether
//     whole (Probe, Validate);
//   - wav*.go, samples.go, g711.go, pcm.go, resample.go, decode*.go:
//     formats and samples;
//   - join*.go: joining files (Joiner);
//   - loudness*.go: loudness and true peak (LoudnessMeter,
//     MeasureLoudnessFile, LoudnessWriter), the one measurement.
//
// Conventions and choices:
//
//   - Samples are float64 in [-1, 1], interleaved by frame. 8-bit WAV PCM
//     is unsigned (the WAV rule); 16, 24 and 32-bit PCM are signed
//     little-endian; float is 32 or 64-bit IEEE. Integer output rounds to
//     nearest and clips.
//   - G.711 follows the ITU-T G.191 reference coder: a 16-bit sample is
//     truncated to 14 (mu-law) or 13 (A-law) bits, negative values in one's
//     complement, so MuLawEncode(0) is 0xFF, MuLawEncode(-1) is 0x7F and
//     ALawEncode(0) is 0xD5.
//   - WriteWAVHeader writes a 44-byte header for PCM and a 58-byte one (an
//     18-byte fmt chunk and a fact chunk) for float, mu-law and A-law.
//     Headers that leave the sizes at 0 or 0xFFFFFFFF (streaming) read as
//     UnknownSize: the data runs to the end.
//   - The resampler is a Kaiser-windowed sinc (16 zero crossings, beta
//     8.6, pass band to 94% of the lower Nyquist frequency), streaming,
//     zero-phase: n input frames become ceil(n*to/from) output frames.
//   - MP3 durations count whole frames, as ffprobe does for files with a
//     Xing header (encoder delay and padding included); Opus durations
//     subtract the pre-skip, so they are the decoded length.
//   - MP3 decoding (package audio/internal/mp3, voxform's own) reads
//     MPEG-1, MPEG-2 and MPEG 2.5 layer III: MP3 at 8 to 48 kHz, mono as
//     one channel. Its samples match ffmpeg's decoder to within 1 LSB of
//     16 bits, and mpg123's at 24 kHz, where ffmpeg 5.1 departs from the
//     standard (see decode_mp3_test.go). Layers I and II are refused
//     with ErrUnsupported.
package audio
