// Package join joins whole audio files of one container, read one at a
// time, into one file of that container (NewJoiner): the chunks of a
// long synthesis into its declared output.
//
// Raw audio (PCM, mu-law, A-law) is the pieces' bytes concatenated, whole
// frames each. MP3 is the pieces' frames in order, their tags and
// Xing/Info/VBRI frames dropped, with an Info frame of the whole when the
// output can seek (mp3.go). Ogg Opus is one logical stream, its pages
// renumbered and their granule positions rewritten, one priming packet
// dropped where the pieces' pre-skips and end trims add up to a packet
// (opus.go). WAV is audio.WAVJoiner's, which package audio keeps beside
// the WAV reader it is built on. A Joiner's Duration before each Append
// is where that piece starts in the joined audio, for cue files.
//
// Pieces are streamed: a joiner holds a buffer and, for Ogg, one page.
// A piece that does not match the first (another sample rate, channel
// count or stream shape), or that is damaged, is refused with an error
// naming the piece; the raw, MP3 and Ogg Opus joiners then refuse every
// piece after it.
package join
