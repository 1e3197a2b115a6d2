// Package audiotest holds the test helpers that the tests of package
// audio and of its subpackages share: running ffmpeg and the other tools
// the tests compare against (never skipping when one is missing), and
// building small files and fuzz seeds byte by byte (WAV chunks, MP3
// frames with Xing and VBRI headers, Ogg pages, AMR). Only tests import
// it.
package audiotest
