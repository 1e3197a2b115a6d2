package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/owned"
)

// Waveform geometry: columns across, the image's height.
const (
	waveColumns = 480
	waveHeight  = 60
	// clipLevel is full scale: the largest 16-bit sample (32767/32768)
	// and anything louder.
	clipLevel = 32767.0 / 32768
	// maxBlocks bounds the envelope kept while reading: past it,
	// neighbouring blocks are merged and blocks grow twice as long.
	maxBlocks = 4 * waveColumns
)

// envelope is the minimum and maximum of the audio over blocks of frames,
// however long the audio: memory is fixed by maxBlocks.
type envelope struct {
	per     int64 // frames per block
	inBlock int64
	lo, hi  []float64
	clip    []bool
	frames  int64
	clipped int64
	peak    float64
}

func newEnvelope() *envelope { return &envelope{per: 16} }

// write adds interleaved samples of ch channels.
func (e *envelope) write(x []float64, ch int) {
	for i := 0; i+ch <= len(x); i += ch {
		if e.inBlock == 0 {
			if len(e.lo) == maxBlocks {
				e.merge()
			}
			e.lo, e.hi, e.clip = append(e.lo, 0), append(e.hi, 0), append(e.clip, false)
		}
		k := len(e.lo) - 1
		for _, v := range x[i : i+ch] {
			e.lo[k], e.hi[k] = min(e.lo[k], v), max(e.hi[k], v)
			a := math.Abs(v)
			if a >= clipLevel {
				e.clipped++
				e.clip[k] = true
			}
			e.peak = max(e.peak, a)
		}
		e.frames++
		if e.inBlock++; e.inBlock == e.per {
			e.inBlock = 0
		}
	}
}

// merge halves the number of blocks.
func (e *envelope) merge() {
	n := len(e.lo) / 2
	for i := 0; i < n; i++ {
		e.lo[i] = min(e.lo[2*i], e.lo[2*i+1])
		e.hi[i] = max(e.hi[2*i], e.hi[2*i+1])
		e.clip[i] = e.clip[2*i] || e.clip[2*i+1]
	}
	e.lo, e.hi, e.clip = e.lo[:n], e.hi[:n], e.clip[:n]
	e.per *= 2
}

// svg draws the envelope: the waveform filled between its minimum and
// maximum, and a red mark above and below every column that clips.
func (e *envelope) svg() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" preserveAspectRatio="none">`,
		waveColumns, waveHeight, waveColumns, waveHeight)
	b.WriteString(`<rect width="100%" height="100%" fill="#f4f6f8"/>`)
	fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#c8cdd3" stroke-width="0.5"/>`, waveHeight/2, waveColumns, waveHeight/2)
	n := len(e.lo)
	if n > 0 {
		lo, hi, clip := make([]float64, waveColumns), make([]float64, waveColumns), make([]bool, waveColumns)
		for c := range waveColumns {
			from, to := c*n/waveColumns, (c+1)*n/waveColumns
			if to <= from {
				to = from + 1
			}
			if from >= n {
				break
			}
			lo[c], hi[c] = e.lo[from], e.hi[from]
			for k := from; k < min(to, n); k++ {
				lo[c], hi[c] = min(lo[c], e.lo[k]), max(hi[c], e.hi[k])
				clip[c] = clip[c] || e.clip[k]
			}
		}
		y := func(v float64) float64 { return float64(waveHeight)/2 - v*float64(waveHeight)/2 }
		b.WriteString(`<path fill="#3b6ea8" d="M0 `)
		fmt.Fprintf(&b, "%.1f", y(hi[0]))
		for c := range waveColumns {
			fmt.Fprintf(&b, " L%d %.1f", c, y(hi[c]))
		}
		for c := waveColumns - 1; c >= 0; c-- {
			fmt.Fprintf(&b, " L%d %.1f", c, y(min(lo[c], hi[c]-2/float64(waveHeight))))
		}
		b.WriteString(` Z"/>`)
		for c, on := range clip {
			if on {
				fmt.Fprintf(&b, `<rect class="clip" x="%d" y="0" width="2" height="4" fill="#d62728"/><rect x="%d" y="%d" width="2" height="4" fill="#d62728"/>`, c, c, waveHeight-4)
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// analyse reads the placed audio at path: its waveform (written as
// wave/BASE.svg), clipping, sample peak and, when asked, loudness, measured
// as apply and verify measure it (loudness.MeasureLoudnessFile: an MP3's
// encoder delay and padding cut, Ogg Opus decoded). What cannot be read is
// said in c.Note; the audio still plays.
func (m *media) analyse(ctx context.Context, path, base string, c *clip) {
	if m.in.Loudness {
		if l, err := loudness.MeasureLoudnessFile(ctx, path, nil); err == nil {
			setLoudness(c, l)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		c.Note = err.Error()
		return
	}
	defer f.Close()
	d, err := audio.Decode(f)
	if err != nil {
		c.Note = "no waveform: " + err.Error()
		return
	}
	env := newEnvelope()
	ch := d.Samples.Channels()
	buf := make([]float64, 4096*ch)
	for {
		if err := ctx.Err(); err != nil {
			c.Note = err.Error()
			return
		}
		n, err := d.Samples.ReadSamples(buf)
		env.write(buf[:n], ch)
		if err == io.EOF {
			break
		}
		if err != nil {
			c.Note = "audio ends early: " + err.Error()
			break
		}
	}
	c.Clipped = env.clipped
	if env.frames > 0 {
		c.Peak = dB(env.peak)
	}
	name := base + ".svg"
	err = owned.WriteFileAt(m.wave, name, 0o644, false, func(w io.Writer) error {
		_, err := w.Write(env.svg())
		return err
	})
	if err != nil {
		c.Note = "no waveform: " + err.Error()
		return
	}
	c.Wave = waveDir + "/" + name
}

func setLoudness(c *clip, l loudness.Loudness) {
	if !l.Silent && !l.Short && !math.IsInf(l.Integrated, 0) {
		v := round1(l.Integrated)
		c.LUFS = &v
	}
	if !math.IsInf(l.TruePeak, 0) {
		v := round1(l.TruePeak)
		c.TruePeak = &v
	}
}

func dB(a float64) *float64 {
	if a <= 0 {
		return nil
	}
	v := round1(20 * math.Log10(a))
	return &v
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
