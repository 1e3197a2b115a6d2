// Package mp3 reads MPEG audio frames and decodes MPEG-1, MPEG-2 and
// MPEG 2.5 layer III (MP3 at 8 to 48 kHz) to PCM.
//
// It owns the rules for MPEG audio framing that package audio shares:
// parsing a frame header (ParseHeader), finding the first frame of a
// stream (Sync) and walking from frame to frame over junk and up to a
// trailing tag (Frames). The decoder (Decoder) follows ISO/IEC 11172-3
// and 13818-3, with the MPEG 2.5 extension for 8, 11.025 and 12 kHz:
// side information, the bit reservoir, MPEG-1 and LSF scale factors,
// Huffman decoding, requantisation, MS and intensity stereo, short-block
// reordering, alias reduction, the hybrid IMDCT with overlap-add and the
// polyphase synthesis filterbank.
//
// Decoding streams: a Decoder holds one frame of output, the overlap of
// the IMDCT, the synthesis filter's history and at most 511 bytes of the
// bit reservoir, whatever the length of the stream. Corrupt input gives
// an error (ErrCorrupt, or a truncated frame's io.ErrUnexpectedEOF),
// never a panic.
//
// Where the standard leaves a choice to the decoder, this one decodes as
// ffmpeg's does, so that voxform measures the samples ffmpeg measures:
// the region boundaries of window-switched granules, the scale factor of
// the last band for intensity stereo, and output for frames whose bit
// reservoir reaches before the start of the stream (silence).
package mp3
