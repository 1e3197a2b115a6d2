package master

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/deliver"
)

// differing counts the bytes that differ, and those one has past the
// other's end.
func differing(a, b []byte) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// writeSquare writes 1 s of a full-scale 16-bit square wave at rate Hz in
// ch channels (each channel its own frequency), in bursts with silence
// between: resampled, it rings over full scale.
func writeSquare(t *testing.T, path string, rate, ch int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := audio.Format{SampleRate: rate, Channels: ch, BitsPerSample: 16, Encoding: audio.PCM}
	w, err := audio.NewWAVWriter(f, format)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 0, rate*ch)
	for i := range rate {
		for c := range ch {
			v := 0.0
			if i%rate < rate*3/4 && math.Sin(2*math.Pi*float64(220*(c+1)*i)/float64(rate)) >= 0 {
				v = 32767.0 / 32768
			} else if i%rate < rate*3/4 {
				v = -1
			}
			x = append(x, v)
		}
	}
	if _, err := w.Write(audio.AppendSamples(nil, format, x)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// masterTo plans m (the analysis and the measuring passes), calls
// between, then writes the mastered WAV file and returns its bytes.
func masterTo(t *testing.T, m *mastering, out string, between func()) []byte {
	t.Helper()
	defer m.close()
	if _, err := m.plan(); err != nil {
		t.Fatal(err)
	}
	between()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := m.write(f); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keptPeak is the largest |sample| of the source m kept.
func keptPeak(t *testing.T, m *mastering) float64 {
	t.Helper()
	c := m.kept.open(context.Background(), m.ch)
	peak, buf := 0.0, make([]float64, 4096*m.ch)
	for {
		n, err := c.ReadSamples(buf)
		for _, v := range buf[:n] {
			peak = max(peak, math.Abs(v))
		}
		if err == io.EOF {
			return peak
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPassesReadTheKeptSource: a source that is resampled is decoded and
// resampled once, by the analysis. The passes after it read what the
// analysis kept: with the source file gone after the analysis, the
// mastering still writes, and writes the bytes of a mastering that reads
// the source at every pass (its kept file cannot be made: no such
// directory), though the resampled source goes over full scale (kept
// unclamped). Mono and stereo, mixed and duplicated.
func TestPassesReadTheKeptSource(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		src, chans int
	}{{"mono", 1, 1}, {"mono to stereo", 1, 2}, {"stereo", 2, 2}, {"stereo to mono", 2, 1}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := filepath.Join(dir, "src.wav")
			writeSquare(t, src, 22050, c.src)
			p := deliver.Builtin("broadcast")
			p.Encoding.Channels = c.chans
			ctx := context.Background()
			again := newMastering(ctx, src, nil, p, filepath.Join(dir, "missing"))
			want := masterTo(t, again, filepath.Join(dir, "want.wav"), func() {
				if again.kept != nil {
					t.Fatal("kept a file in a directory that does not exist")
				}
			})
			m := newMastering(ctx, src, nil, p, dir)
			got := masterTo(t, m, filepath.Join(dir, "got.wav"), func() {
				if m.kept == nil {
					t.Fatal("the analysis kept nothing of a resampled source")
				}
				if peak := keptPeak(t, m); peak <= 1 {
					t.Errorf("the kept source peaks at %g: not over full scale, the case proves nothing", peak)
				}
				if err := os.Remove(src); err != nil {
					t.Fatal(err)
				}
			})
			if !bytes.Equal(got, want) {
				t.Errorf("mastered from the kept source, %d bytes differ from a mastering that reads the source at every pass (%d bytes)", differing(got, want), len(want))
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "voxform-master-source-*")); len(left) > 0 {
				t.Errorf("the kept source is left: %v", left)
			}
		})
	}
}
