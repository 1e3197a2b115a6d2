// Package ogg reads and writes Ogg pages (RFC 3533), the one page codec
// of voxform's audio code: probing an Ogg file, decoding Ogg Opus to
// measure its loudness and joining Ogg Opus files all go through it.
//
// It owns the page format and its checksum, not packets or codecs: a
// Page is a header, its segment table (lacing values) and its body;
// Reader reads pages one at a time from a stream, Parse one from bytes,
// and Append writes one with its checksum computed.
//
// The checksum rule: Reader checks every page's CRC and refuses a page
// whose CRC does not match, with an error that says which page, at which
// byte, and matches ErrDamaged; the page is returned with the error, so
// a caller may still read what the page says (a prober naming a codec it
// does not support). A Reader may be told to accept bad checksums
// (AcceptBadCRC); no caller in voxform does so in production. Parse
// checks nothing but the structure; Page.CheckCRC checks the checksum.
//
// Bounds: a page is at most MaxPageSize bytes by construction (255
// segments of at most 255 bytes), so a Reader holds at most one page and
// no input makes it grow a buffer beyond that.
package ogg
