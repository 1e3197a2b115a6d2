// Package audio sniffs containers, probes durations, validates finished
// files, reads and writes WAV, converts between PCM, mu-law and A-law,
// resamples, and decodes WAV and MP3 to samples. Everything works on
// streams; nothing reads a whole file into memory unless the caller hands
// it a buffer (ParseWAV and WAVJoiner.Add take one piece at a time).
//
// Where things are. Package audio is the file and its samples; what is
// built on them, and the codecs below them, have packages of their own:
//
//   - audio/loudness: the one measurement, loudness and true peak
//     (ITU-R BS.1770-4, EBU R 128) of a file, a stream being written
//     (LoudnessWriter) or samples, with the Ogg Opus decoding and the MP3
//     gapless trim it needs to measure what ffmpeg measures, and the
//     rendition the listening check sends to speech recognition (Render:
//     mono 16-bit WAV, loudness and edges in one pass);
//   - audio/join: joining whole files of one container into one
//     (NewJoiner): raw audio byte for byte, MP3 by frames, Ogg Opus as one
//     logical stream, WAV through audio.WAVJoiner;
//   - audio/ogg: the Ogg page codec (read, parse, write, CRC), used by
//     probing, measuring and joining;
//   - audio/internal/mp3: MPEG audio framing (headers, sync, frame walk,
//     ID3, Xing/VBRI and LAME tags) and the MP3 decoder;
//   - audio/internal/kaiser: the Bessel function of the Kaiser window the
//     resampler and the true-peak filter share;
//   - audio/internal/audiotest: the helpers the tests of these packages
//     share (ffmpeg runners, fuzz seeds), for tests only.
//
// In package audio itself:
//
//   - format.go: Format, Encoding and their limits;
//   - sniff.go, probe*.go (one file per container family), validate.go:
//     what a file is, how long, whether whole (Sniff, Probe, ProbeRaw,
//     Validate, ValidateRawAt); probing and validating share the container
//     readers, so they stay together;
//   - wav.go, wav_read.go, wav_join.go: the WAV codec (WriteWAVHeader,
//     WAVWriter, ReadWAVHeader, ParseWAV, and WAVJoiner, which writes one
//     WAV file from pieces, as the streaming synthesis sends them);
//   - samples.go, g711.go, resample.go, decode.go: samples (SampleSource,
//     SampleReader and SampleWriter, Mono, G.711, Resampler, Decode);
//   - pcm.go: an encoder of samples to a Format and a cutter of realtime
//     recognition frames; only this package's tests call them
//     (speechapi/realtime_stt.go frames its audio itself).
//
// The layering is strict (arch_test.go at the root): audio/ogg and
// audio/internal/* import no other audio package; audio imports only
// them; audio/loudness and audio/join import audio and them, never each
// other. Names no other package uses are unexported; the tests reach
// them through export_test.go.
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
