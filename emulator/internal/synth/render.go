package synth

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// pcmSource yields the mono 16-bit samples of one synthesis at its output
// rate. Total is exact before the first Read, so that a WAV header and a
// Content-Length can be written first.
type pcmSource interface {
	Read(p []int16) (int, error)
	Total() int64
	Close() error
}

// Cache bounds: a synthesis of up to maxEntrySamples is rendered whole and
// kept; longer ones are streamed in pieces and never held in memory.
const (
	maxEntrySamples = 2 << 20  // about 44 s at 48 kHz
	maxCacheSamples = 16 << 20 // 32 MiB of 16-bit samples in all
)

// renderer turns jobs into samples: espeak-ng when available, otherwise
// the synthetic voice, with a bounded LRU cache of whole renderings.
type renderer struct {
	env    *emu.Env
	espeak string // path of espeak-ng, empty when not used

	renders  atomic.Int64 // renderings started (cache misses), for tests
	flight   singleflight.Group
	maxEntry int64 // longest rendering held whole (maxEntrySamples)

	mu    sync.Mutex
	lru   *list.List // of *cached, most recent first
	byKey map[string]*list.Element
	size  int
}

type cached struct {
	key     string
	samples []int16
}

func newRenderer(env *emu.Env) *renderer {
	r := &renderer{env: env, lru: list.New(), byKey: map[string]*list.Element{}, maxEntry: maxEntrySamples}
	if !env.Opts.NoEspeak {
		if p, err := exec.LookPath("espeak-ng"); err == nil {
			r.espeak = p
		}
	}
	return r
}

// key identifies the samples of a job at a rate: everything that changes
// the sound, and nothing else (not the container, channels or width).
func (r *renderer) key(j *job, rate int) string {
	h := sha256.New()
	for _, s := range []string{r.espeak, j.Model, j.Voice, j.Embedding, j.Language,
		strconv.FormatFloat(j.Speed, 'g', -1, 64), strconv.Itoa(rate)} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	for _, p := range j.Parts {
		fmt.Fprintf(h, "%d:%s%d:%s", len(p.Tag), p.Tag, len(p.Text), p.Text)
	}
	if j.silent {
		h.Write([]byte("silent"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// open returns the samples of j at rate: for a silent job, silence as
// long as its speech.
func (r *renderer) open(ctx context.Context, j *job, rate int) (pcmSource, error) {
	if j.silent {
		spoken := *j
		spoken.silent = false
		src, err := r.open(ctx, &spoken, rate)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		return &silence{total: src.Total()}, nil
	}
	key := r.key(j, rate)
	if s, ok := r.lookup(key); ok {
		return &memSource{s: s}, nil
	}
	estimate := planTotal(j, rate)
	if estimate > r.maxEntry {
		return r.stream(ctx, j, rate)
	}
	// A burst of identical requests renders once.
	v, err, _ := r.flight.Do(key, func() (any, error) { return r.whole(context.WithoutCancel(ctx), j, rate, key, estimate) })
	if err != nil {
		return nil, err
	}
	return &memSource{s: v.([]int16)}, nil
}

// whole renders j at rate into memory, registers and caches it.
func (r *renderer) whole(ctx context.Context, j *job, rate int, key string, estimate int64) ([]int16, error) {
	src, err := r.fresh(ctx, j, rate)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	samples := make([]int16, 0, estimate+estimate/4)
	buf := make([]int16, 8192)
	for {
		n, err := src.Read(buf)
		samples = append(samples, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	r.remember(j, rate, samples)
	r.store(key, samples)
	return samples, nil
}

// fresh starts rendering j at rate without the cache. Its Total is not
// known for espeak-ng.
func (r *renderer) fresh(ctx context.Context, j *job, rate int) (interface {
	Read([]int16) (int, error)
	Close() error
}, error) {
	r.renders.Add(1)
	if r.espeak == "" {
		return nopCloser{newSynthetic(j, rate)}, nil
	}
	return startEspeak(ctx, r.espeak, j, rate)
}

// stream renders a long job piece by piece. espeak-ng output is counted by
// a first pass (espeak-ng is deterministic), so Total is exact.
func (r *renderer) stream(ctx context.Context, j *job, rate int) (pcmSource, error) {
	total := int64(-1)
	if r.espeak != "" {
		src, err := startEspeak(ctx, r.espeak, j, rate)
		if err != nil {
			return nil, err
		}
		total, err = count(src)
		src.Close()
		if err != nil {
			return nil, err
		}
	}
	src, err := r.fresh(ctx, j, rate)
	if err != nil {
		return nil, err
	}
	if total < 0 {
		total = src.(nopCloser).synthetic.Total()
	}
	env := emu.NewEnvelope(rate)
	env.Reserve(total)
	return &envelopeSource{src: src, total: total, env: env, r: r, j: j, rate: rate}, nil
}

func count(src interface{ Read([]int16) (int, error) }) (int64, error) {
	buf := make([]int16, 16384)
	var n int64
	for {
		k, err := src.Read(buf)
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// remember registers what the audio says, so that recognition of it
// returns its text.
func (r *renderer) remember(j *job, rate int, samples []int16) {
	e := emu.NewEnvelope(rate)
	e.Reserve(int64(len(samples)))
	for _, s := range samples {
		e.Add(float64(s) / 32768)
	}
	r.env.Registry.Remember(e.Values(), r.spoken(j, rate, int64(len(samples))))
}

func (r *renderer) spoken(j *job, rate int, n int64) emu.Spoken {
	return emu.Spoken{Text: j.Spoken, Language: j.Language, Seconds: float64(n) / float64(rate)}
}

func (r *renderer) lookup(key string) ([]int16, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	el, ok := r.byKey[key]
	if !ok {
		return nil, false
	}
	r.lru.MoveToFront(el)
	return el.Value.(*cached).samples, true
}

func (r *renderer) store(key string, samples []int16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[key]; ok {
		return
	}
	r.byKey[key] = r.lru.PushFront(&cached{key: key, samples: samples})
	r.size += len(samples)
	for r.size > maxCacheSamples && r.lru.Len() > 1 {
		old := r.lru.Remove(r.lru.Back()).(*cached)
		delete(r.byKey, old.key)
		r.size -= len(old.samples)
	}
}

// memSource reads samples held in memory (shared with the cache: read only).
type memSource struct {
	s   []int16
	pos int
}

func (m *memSource) Total() int64 { return int64(len(m.s)) }
func (m *memSource) Close() error { return nil }
func (m *memSource) Read(p []int16) (int, error) {
	if m.pos >= len(m.s) {
		return 0, io.EOF
	}
	n := copy(p, m.s[m.pos:])
	m.pos += n
	return n, nil
}

type nopCloser struct{ *synthetic }

func (nopCloser) Close() error { return nil }

// envelopeSource streams a long rendering, holds it to exactly total
// samples, and registers its envelope when it has all been read.
type envelopeSource struct {
	src interface {
		Read([]int16) (int, error)
		Close() error
	}
	total, pos int64
	env        *emu.Envelope
	r          *renderer
	j          *job
	rate       int
	srcDone    bool
}

func (e *envelopeSource) Total() int64 { return e.total }
func (e *envelopeSource) Close() error { return e.src.Close() }

func (e *envelopeSource) Read(p []int16) (int, error) {
	if e.pos >= e.total {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), e.total-e.pos)]
	n := 0
	if !e.srcDone {
		k, err := e.src.Read(p)
		n = k
		if err == io.EOF {
			e.srcDone = true
		} else if err != nil {
			return 0, err
		}
	}
	if e.srcDone && n == 0 {
		n = len(p)
		clear(p) // a shorter second pass is padded with silence
	}
	for _, s := range p[:n] {
		e.env.Add(float64(s) / 32768)
	}
	e.pos += int64(n)
	if e.pos == e.total {
		e.r.env.Registry.Remember(e.env.Values(), e.r.spoken(e.j, e.rate, e.total))
	}
	return n, nil
}
