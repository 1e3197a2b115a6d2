// Package encode owns voxform's outside encoder: ffmpeg, found on PATH,
// its version and libraries read and recorded, its encoders checked
// before any run. Through it voxform encodes what it does not encode
// itself: MP3 with LAME (libmp3lame), AAC in MP4 with ffmpeg's own AAC
// encoder, Opus in Ogg with libopus. ffmpeg is the field's standard
// tool for these (every platform's own guidance names it), each encoder
// behind it is the reference or most used one for its codec, and Go has
// no maintained encoder for any of the three. PCM, mu-law and A-law WAV
// are voxform's own (audio/master).
//
// It also decodes any file ffmpeg reads to WAV (how AAC in MP4 is
// measured), probes files voxform's own prober cannot (MP4, M4A, M4B)
// with ffprobe or, without it, ffmpeg's description, and writes books:
// an M4B with chapters, an MP3 with ID3v2 CHAP and CTOC frames, and
// Podcasting 2.0 JSON chapters.
//
// # Promises
//
//   - Bit-exact: the same input and encoding give the same bytes on every
//     run (-fflags +bitexact, -flags:a +bitexact, -map_metadata -1 and
//     only the metadata voxform sets, one thread, a fixed Ogg serial).
//     Identity names everything that changes the bytes: ffmpeg's
//     version, its libraries and every output flag.
//   - Every run is bound by its context and a timeout named in its
//     error; ffmpeg's standard error is kept up to MaxStderr bytes; it
//     runs with an environment of its own (nothing of voxform's: no API
//     key), reads local files and pipes only, and writes only the output
//     path given (the caller's temp path, which it renames). A failed,
//     stopped or timed out run leaves no output file.
//   - A missing ffmpeg or encoder is an error naming what is missing
//     (wrapping ErrMissing); the caller adds the profile that needs it.
//   - Chapters start where the caller says, exact to the PCM: the times
//     are passed to ffmpeg in nanoseconds and read back (ffprobe
//     -show_chapters) within one codec frame.
//   - The Go side never holds a whole file: audio goes from file to
//     ffmpeg to file (or a writer), and probing streams ffmpeg's packet
//     lines and the MP3 frame headers.
package encode
