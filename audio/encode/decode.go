package encode

import (
	"context"
	"io"
)

// Decode decodes the first audio stream of in, any file ffmpeg reads, to
// a 32-bit float WAV at the stream's own rate and channels, written to w
// as ffmpeg makes it (streamed: neither side holds the file). On a pipe
// ffmpeg cannot go back to fill in the header's sizes, so they may read
// 0xFFFFFFFF or 0: read the data to its end. It is how AAC in MP4 is
// measured; an encoder's delay and padding are trimmed as the container
// says (MP4's edit list, MP3's LAME tag).
func (t *Tool) Decode(ctx context.Context, in string, w io.Writer) error {
	args := append(input(nil, "", "file:"+in), "-map", "0:a:0", "-map_metadata", "-1",
		"-fflags", "+bitexact", "-flags:a", "+bitexact", "-c:a", "pcm_f32le", "-f", "wav", "pipe:1")
	return run(ctx, job{what: "decode " + in, path: t.Path, args: args, stdout: w, timeout: t.timeout()})
}
