// Package audio sniffs containers, probes durations, reads and writes WAV,
// converts between PCM, mu-law and A-law, resamples, and joins WAV pieces
// RIFF-aware. Everything works on streams; nothing reads a whole file into
// memory unless the caller hands it a buffer.
package audio
