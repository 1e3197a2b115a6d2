// Package mute writes the redacted copy of a recording: a WAV file whose
// given time ranges are silenced or beeped, every other byte the
// source's own (Mute). The header, format, sample rate, channels, sample
// count, the chunks around the audio and the audio outside the ranges
// are copied unchanged, so that the copy lines up with the source and
// its transcript to the sample.
//
// What it accepts is what package audio reads as WAV: PCM of 8, 16, 24
// and 32 bits, 32 and 64-bit float, mu-law and A-law, plain or
// WAVE_FORMAT_EXTENSIBLE, with sized or streaming headers. Any other
// container (MP3, Ogg, FLAC, M4A, WebM, AMR, AAC, RF64) or WAV encoding
// (ADPCM and the like) is refused with an error naming it, before a
// byte is written; Supports tells at plan time.
//
// Silence is the encoding's zero, as package audio encodes 0.0: 0x80
// for 8-bit PCM, zero for the other PCM widths and float, 0xFF for
// mu-law and 0xD5 for A-law (G.711's codes nearest zero; A-law's decodes
// to 8/32768, -72 dBFS). The beep is a 1 kHz sine (a quarter of the
// sample rate below 4 kHz) at -20 dBFS peak, starting at phase zero at
// each range's first sample. A range covers every frame it touches
// (its start rounded down, its end up), on every channel: a number
// spoken on one channel of a call is muted on all of them, since the
// other side may repeat or overhear it.
//
// The copy is streamed in whole frames through one buffer; only the
// header (at most MaxHeaderBytes) is held whole, so that nothing is
// written when the source is refused. Ranges are bounded (MaxRanges),
// sorted and merged first.
package mute
