package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/internal/heaptest"
)

// The mastering step (M1, M2; -only master) masters a long chapter of
// speech-like 44.1 kHz mono audio in this process, as an apply's
// delivery does: to broadcast (48 kHz WAV: resampled, so its passes
// read the source the analysis kept) and to acx (44.1 kHz MP3 through
// ffmpeg: no resampling, and the rounds that correct for the encoder).
// It reports the wall and CPU time of each and the most heap in use.
const (
	chapterMinutes      = 119 // under acx's 120-minute limit
	quickChapterMinutes = 10
	masterRate          = 44100
	// masterHeapTarget is the heap mastering may hold whatever the
	// length (audio/master's doc: every pass streams).
	masterHeapTarget = 16 << 20
)

// mastering is the M step.
func (h *harness) mastering(ctx context.Context) error {
	minutes := chapterMinutes
	if h.sz.quick {
		minutes = quickChapterMinutes
	}
	return h.masterChapter(ctx, int64(minutes)*60)
}

// masterChapter masters a chapter of seconds s to each profile.
func (h *harness) masterChapter(ctx context.Context, seconds int64) error {
	dir := filepath.Join(h.work, "master")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir) // hundreds of MB: never kept
	src := filepath.Join(dir, "chapter.wav")
	length := time.Duration(seconds) * time.Second
	if err := writeSpeechLike(src, seconds*masterRate); err != nil {
		return fmt.Errorf("generate a %v chapter: %w", length, err)
	}
	tool, err := encode.Find()
	if err != nil {
		return err
	}
	for i, name := range []string{"broadcast", "acx"} {
		line, heap, err := masterOne(ctx, src, dir, deliver.Builtin(name), ffmpegEncoder{tool})
		if err != nil {
			return fmt.Errorf("master to %s: %w", name, err)
		}
		h.add(result{ID: fmt.Sprintf("M%d", i+1), What: fmt.Sprintf("master a %v 44.1 kHz chapter to %s", length, name),
			Target: "heap <= " + mib(masterHeapTarget), Figure: line,
			Verdict: h.verdict(heap <= masterHeapTarget, false)})
	}
	return nil
}

// masterOne masters src to p and describes it.
func masterOne(ctx context.Context, src, dir string, p *deliver.Profile, enc master.Encoder) (string, int64, error) {
	out := filepath.Join(dir, "out."+p.Extension())
	defer os.Remove(out)
	runtime.GC()
	stop := heaptest.Sample(20 * time.Millisecond)
	start, cpu := time.Now(), selfCPU()
	res, err := master.Master(ctx, src, nil, p, enc, dir, out)
	wall, used := time.Since(start), selfCPU()-cpu
	heap := int64(stop())
	if err != nil {
		return "", heap, err
	}
	return fmt.Sprintf("%s s (CPU %s s), peak heap %s; %.1f LUFS, %.2f dBTP, %s", secs(wall), secs(used), mib(heap),
		res.Measured.Integrated, res.Measured.TruePeak, byteSize(res.Size)), heap, nil
}

// writeSpeechLike writes frames of a mono signal with the rhythm of
// speech (bursts of noise-modulated tone, a pause every 4 s;
// deterministic) as a 16-bit WAV file at masterRate.
func writeSpeechLike(path string, frames int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	format := audio.Format{SampleRate: masterRate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	w, err := audio.NewWAVWriter(f, format)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	buf, b := make([]float64, 0, 4096), []byte(nil)
	for i := int64(0); i < frames; i++ {
		t := float64(i) / masterRate
		v := 0.0
		if math.Mod(t, 4) <= 3.2 {
			env := 0.5 + 0.5*math.Sin(2*math.Pi*3*t)
			v = env * (0.25*math.Sin(2*math.Pi*180*t) + 0.05*(2*rng.Float64()-1))
		}
		if buf = append(buf, v); len(buf) == cap(buf) || i == frames-1 {
			b = audio.AppendSamples(b[:0], format, buf)
			if _, err := w.Write(b); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// ffmpegEncoder is encode.Tool as master.Encoder (as the cli's).
type ffmpegEncoder struct{ *encode.Tool }

// Probe is encode.Tool.Probe in master's terms.
func (f ffmpegEncoder) Probe(ctx context.Context, path string) (master.Stream, error) {
	s, err := f.Tool.Probe(ctx, path)
	if err != nil {
		return master.Stream{}, err
	}
	return master.Stream{Container: s.Container, Codec: s.Codec, SampleRate: s.SampleRate, Channels: s.Channels,
		Bitrate: s.Bitrate, CBR: s.BitrateMode == deliver.CBR}, nil
}
