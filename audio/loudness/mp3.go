package loudness

import (
	"io"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/mp3"
)

// MP3 is decoded with audio.Decode (package mp3, every MPEG version of layer
// III), with one correction so that the samples measured are the ones
// ffmpeg measures: the encoder delay and padding a LAME tag records are
// cut, as ffmpeg's decoder does (gapless playback): the delay plus the
// decoder's own 529 samples at the start, the padding at the end. Left
// in, they shift every gating block by tens of milliseconds, which moves
// the integrated loudness of short speech by more than 0.1 LU.

// openMP3 returns the samples of the MP3 file in rs, the encoder delay
// and padding cut, and their rate.
func openMP3(rs io.ReadSeeker) (audio.SampleSource, int, error) {
	h, gap, err := mp3.ReadGapless(rs)
	if err != nil {
		return nil, 0, err
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	d, err := audio.Decode(rs)
	if err != nil {
		return nil, 0, err
	}
	src := d.Samples
	if gap != nil {
		keep := int64(-1)
		if gap.Frames > 0 {
			keep = max(gap.Frames*int64(h.Samples)-gap.Start-gap.End, 0)
		}
		src = &trimmed{src: src, skip: gap.Start + mp3.DecoderDelay, keep: keep, frame: int64(h.Samples)}
	}
	return src, d.Format.SampleRate, nil
}

// trimmed drops the first skip frames of src and ends after keep more
// (keep < 0: at the end of src).
type trimmed struct {
	src   audio.SampleSource
	skip  int64
	keep  int64
	frame int64 // samples per MP3 frame
}

// short reports whether src ended a whole MP3 frame or more before the
// length the LAME tag gives: the file was cut at a frame boundary. (A
// whole file ends at most mp3.DecoderDelay samples early, fewer than any
// frame holds, since the decoder's delay is skipped at the start.)
func (t *trimmed) short() bool { return t.keep > 0 && t.keep >= t.frame }

func (t *trimmed) Channels() int { return t.src.Channels() }

func (t *trimmed) ReadSamples(dst []float64) (int, error) {
	ch := t.src.Channels()
	for {
		if t.keep == 0 {
			return 0, io.EOF
		}
		want := len(dst) / ch
		if t.keep > 0 {
			want = int(min(int64(want), t.keep))
		}
		n, err := t.src.ReadSamples(dst[:want*ch])
		frames := int64(n / ch)
		if t.skip > 0 {
			drop := min(t.skip, frames)
			t.skip -= drop
			copy(dst, dst[drop*int64(ch):n])
			frames -= drop
			n = int(frames) * ch
		}
		if t.keep > 0 {
			t.keep -= frames
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}
