package master

import (
	"io"
	"math"

	"github.com/voxform/voxform/audio/loudness"
)

// windowMs is the window of the head and tail rule (deliver.HeadTailThreshold
// over 10 ms windows, as audio/loudness's edges).
const windowMs = 10

// analysis is what the first pass learns of the source as the profile
// hears it (mixed and resampled): its loudness, and where its sound
// starts and ends at any gain.
type analysis struct {
	frames     int64
	window     int64   // frames per 10 ms window
	windows    int64   // windows seen
	integrated float64 // LUFS
	rms        float64 // dBFS, every sample
	// rising holds the windows louder than every window before them,
	// falling (a stack) those louder than every window after them; levels
	// in hundredths of a dB. Their lengths are bounded by the level
	// range, not by the duration.
	rising, falling []record
}

type record struct {
	level  int32 // mean square of the mono window, 0.01 dB steps
	window int64
}

// analyse reads c to its end (at most limit frames, else errTooLong).
func analyse(c *chain, rate int, limit int64) (*analysis, error) {
	ch := c.Channels()
	m, err := loudness.NewMeter(rate, ch)
	if err != nil {
		return nil, err
	}
	a := &analysis{window: max(int64(rate)*windowMs/1000, 1)}
	var w windowSum
	buf := make([]float64, 4096*ch)
	for {
		n, err := c.ReadSamples(buf)
		m.Write(buf[:n])
		a.take(buf[:n], ch, &w)
		if a.frames > limit {
			return nil, errTooLong
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if w.n > 0 {
		a.addWindow(w.mono / float64(w.n))
	}
	a.integrated = m.Loudness().Integrated
	a.rms = dB(math.Sqrt(w.all / float64(max(a.frames*int64(ch), 1))))
	return a, nil
}

// windowSum is the sums of analyse: of the squares of every sample, and
// of the squared mono samples of the current window.
type windowSum struct {
	all, mono float64
	n         int64
}

// take adds frames of ch channels.
func (a *analysis) take(x []float64, ch int, w *windowSum) {
	for i := 0; i+ch <= len(x); i += ch {
		mono := 0.0
		for _, v := range x[i : i+ch] {
			w.all += v * v
			mono += v
		}
		mono /= float64(ch)
		w.mono += mono * mono
		if w.n++; w.n == a.window {
			a.addWindow(w.mono / float64(w.n))
			w.mono, w.n = 0, 0
		}
	}
	a.frames += int64(len(x) / ch)
}

// addWindow records the next window's mean square.
func (a *analysis) addWindow(ms float64) {
	w := a.windows
	a.windows++
	if ms <= 0 {
		return
	}
	q := int32(math.Floor(100 * 10 * math.Log10(ms)))
	if n := len(a.rising); n == 0 || q > a.rising[n-1].level {
		a.rising = append(a.rising, record{q, w})
	}
	for n := len(a.falling); n > 0 && a.falling[n-1].level <= q; n-- {
		a.falling = a.falling[:n-1]
	}
	a.falling = append(a.falling, record{q, w})
}

// sound returns the frames [start, end) from the first to the last window
// that is sound (RMS above deliver.HeadTailThreshold) at a gain of gainDB;
// ok is false when none is.
func (a *analysis) sound(gainDB float64) (start, end int64, ok bool) {
	t := int32(math.Floor(100 * (threshold - gainDB)))
	first, last := int64(-1), int64(-1)
	for _, r := range a.rising {
		if r.level > t {
			first = r.window
			break
		}
	}
	for i := len(a.falling) - 1; i >= 0; i-- {
		if a.falling[i].level > t {
			last = a.falling[i].window
			break
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	return first * a.window, min((last+1)*a.window, a.frames), true
}

func dB(v float64) float64 { return 20 * math.Log10(v) }

func fromDB(d float64) float64 { return math.Pow(10, d/20) }
