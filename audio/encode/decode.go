package encode

import (
	"context"
	"io"
	"strconv"
)

// Decode decodes the first audio stream of in, any file ffmpeg reads, to
// a 32-bit float WAV at the stream's own rate and channels, written to w
// as ffmpeg makes it (streamed: neither side holds the file). On a pipe
// ffmpeg cannot go back to fill in the header's sizes, so they read
// 0xFFFFFFFF: read the data to its end. It is how AAC in MP4 is
// measured. An encoder's priming and padding are trimmed as the
// container says: MP3's LAME tag and Ogg's granule positions by ffmpeg's
// decoding, MP4's end (which ffmpeg 5 leaves untrimmed) by a first scan
// of the packets, whose times say where the stream ends to the sample.
func (t *Tool) Decode(ctx context.Context, in string, w io.Writer) error {
	p, err := t.scanPackets(ctx, in)
	if err != nil {
		return err
	}
	args := append(input(nil, "", "file:"+in), "-map", "0:a:0", "-map_metadata", "-1",
		"-fflags", "+bitexact", "-flags:a", "+bitexact")
	if end := p.endSample(); end > 0 {
		args = append(args, "-af", "atrim=end_sample="+strconv.FormatInt(end, 10))
	}
	args = append(args, "-c:a", "pcm_f32le", "-f", "wav", "pipe:1")
	return run(ctx, job{what: "decode " + in, path: t.Path, args: args, stdout: w, timeout: t.timeout()})
}
