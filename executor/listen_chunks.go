package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// chunkChecks are the listening checks of a chunked synthesis: each
// chunk's own audio (its blob in the chunk store) is checked, unless the
// state records its check for that audio; a failing chunk is synthesized
// again (its store entry replaced) and checked again, round by round, as
// many rounds as listen.regenerate allows. A chunk that fails every take
// is joined as it is (the output must be whole) and recorded failing. A
// chunk whose check cannot be made, or whose take made again is lost,
// keeps the audio the store holds and is joined and recorded without a
// check (errs says why; the apply fails naming it): what was paid for
// is kept and recorded, and the next plan prices the check.
type chunkChecks struct {
	// heard is each chunk's last check (nil: recorded, kept from prior).
	heard []*heard
	// takes counts each chunk's takes in this apply.
	takes []int
	// chars and secs are what the extra takes and the checks billed.
	chars int64
	secs  float64
	prior map[string]*state.ChunkRecord
	errs  []error
}

// checkChunks checks every chunk of a that the state does not record a
// check of, and regenerates the failing ones (see chunkChecks).
func (op *synthesisOp) checkChunks(ctx context.Context, a *planner.Action, al *allowance, base *speechapi.SynthesisRequest, store *cache.Local, format contract.Format) (*chunkChecks, error) {
	n := len(a.Desired.Details().Chunks)
	ck := &chunkChecks{heard: make([]*heard, n), takes: make([]int, n), prior: map[string]*state.ChunkRecord{}}
	var todo []int
	for i, it := range planner.ListenItems(a) {
		if r := ck.recorded(a, store, it); r != nil {
			ck.prior[r.Fingerprint] = r
			continue
		}
		todo = append(todo, i)
		ck.takes[i] = 1
	}
	ck.note(op.checkRound(ctx, a, al, store, todo, ck))
	for range a.Desired.Details().Listen.Regenerate {
		failing := ck.failing(todo)
		if len(failing) == 0 || ctx.Err() != nil {
			break
		}
		made, err := op.synthesizeAgain(ctx, a, al, base, store, format, failing, ck)
		ck.note(op.checkRound(ctx, a, al, store, made, ck))
		if ck.note(err); err != nil {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled: as an interrupted call
	}
	return ck, nil
}

// note keeps err, a check not made or a take lost (nil: none).
func (ck *chunkChecks) note(err error) {
	if err != nil {
		ck.errs = append(ck.errs, err)
	}
}

// err is why some chunk is recorded without its check, nil when none is
// (false for nil).
func (ck *chunkChecks) err() error {
	if ck == nil {
		return nil
	}
	return errors.Join(ck.errs...)
}

// recorded is the prior record of a chunk whose check the state records
// for the audio the store holds for it (the take an interrupted apply
// made again and kept there, paid for, is checked), with the measures
// its seams need; nil when the chunk is to be checked.
func (ck *chunkChecks) recorded(a *planner.Action, store *cache.Local, it planner.ListenItem) *state.ChunkRecord {
	if it.Chunk >= 0 {
		if f, err := chunkAudio(store, a.Desired.Details().Chunks[it.Chunk].Fingerprint); err == nil {
			it.SHA256 = f.SHA256
		}
	}
	if !it.Recorded(a.Listen.Language) || a.Prior == nil {
		return nil
	}
	for i := range a.Prior.Details().Chunks {
		r := &a.Prior.Details().Chunks[i]
		if r.SHA256 == it.SHA256 && r.Listen == it.Record && r.Loudness != nil {
			return r
		}
	}
	return nil
}

// failing lists the chunks of todo whose last check failed.
func (ck *chunkChecks) failing(todo []int) []int {
	var out []int
	for _, i := range todo {
		if h := ck.heard[i]; h != nil && !h.rec.Pass {
			out = append(out, i)
		}
	}
	return out
}

// checkRound checks the chunks todo: each rendered and looked up, up to
// op.parallelism at once, then every one the cache did not hold heard
// together (those longer than REST takes in shared batch jobs), then
// judged.
func (op *synthesisOp) checkRound(ctx context.Context, a *planner.Action, al *allowance, store *cache.Local, todo []int, ck *chunkChecks) error {
	cs, err := op.checkStore()
	if err != nil {
		return err
	}
	ps := make([]*pending, len(todo))
	errs := make([]error, len(todo))
	var g errgroup.Group
	g.SetLimit(max(op.parallelism, 1))
	for j, i := range todo {
		g.Go(func() error {
			ps[j], errs[j] = op.prepareChunk(ctx, a, store, cs, i, ck.takes[i])
			return nil
		})
	}
	g.Wait()
	var ready []*pending
	var at []int
	for j, p := range ps {
		if p != nil {
			defer p.done()
			ready, at = append(ready, p), append(at, j)
		}
	}
	for k, err := range op.listen.hear(ctx, a, al, cs, ready, op.parallelism) {
		j := at[k]
		if errs[j] = err; err == nil {
			ck.secs += ready[k].h.billed // also when it is not judged
			var h heard
			if h, errs[j] = op.listen.judge(a, ready[k]); errs[j] == nil {
				ck.heard[todo[j]] = &h
			}
		}
	}
	var out []error
	for j, err := range errs {
		if err != nil {
			out = append(out, fmt.Errorf("%s: %w", planner.ChunkName(todo[j], len(a.Desired.Details().Chunks)), err))
		}
	}
	return errors.Join(out...)
}

// prepareChunk renders chunk i's audio as the store holds it, read from
// a scratch copy (a rendition reads its source more than once), and
// looks its check up.
func (op *synthesisOp) prepareChunk(ctx context.Context, a *planner.Action, store *cache.Local, cs checkStore, i, n int) (*pending, error) {
	ch := a.Desired.Details().Chunks[i]
	f, err := chunkAudio(store, ch.Fingerprint)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "voxform-chunk-*")
	if err != nil {
		return nil, fmt.Errorf("create a scratch file: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = store.CopyBlob(f.SHA256, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read the chunk's audio: %w", err)
	}
	format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
	return op.listen.prepare(ctx, a, cs, take{Chunk: i, Take: max(n, 1), Text: ch.Text, Path: tmp.Name(), Raw: rawFormat(format), SHA256: f.SHA256})
}

// synthesizeAgain makes one more take of each chunk of failing, billed
// within the allowance, replacing its store entry, and returns the
// chunks it made (a chunk whose take is lost keeps its last one).
func (op *synthesisOp) synthesizeAgain(ctx context.Context, a *planner.Action, al *allowance, base *speechapi.SynthesisRequest, store *cache.Local, format contract.Format, failing []int, ck *chunkChecks) ([]int, error) {
	var made []int
	var g errgroup.Group
	g.SetLimit(max(op.parallelism, 1))
	var mu sync.Mutex
	var errs []error
	for _, i := range failing {
		ch := a.Desired.Details().Chunks[i]
		what := fmt.Sprintf("take %d of %s", ck.takes[i]+1, planner.ChunkName(i, len(a.Desired.Details().Chunks)))
		if err := al.chars(ch.Characters, what); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			break // the takes started finish and are counted
		}
		g.Go(func() error {
			err := op.synthesizeChunk(ctx, a, base, ch, store, format)
			mu.Lock()
			defer mu.Unlock()
			ck.chars += ch.Characters // billed once sent, kept or not
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", what, err))
				return nil
			}
			ck.takes[i]++
			ck.heard[i] = nil // until the new take is checked
			made = append(made, i)
			return nil
		})
	}
	g.Wait()
	sort.Ints(made)
	return made, errors.Join(errs...)
}

// extra counts the takes beyond the first of each chunk (0 for nil).
func (ck *chunkChecks) extra() int {
	n := 0
	for i := 0; ck != nil && i < len(ck.takes); i++ {
		n += max(ck.takes[i]-1, 0)
	}
	return n
}

// place records where the joiner put each chunk: starts holds the start
// of each and the end of the last (nothing without checks).
func (ck *chunkChecks) place(records []state.ChunkRecord, starts []time.Duration) {
	if ck == nil {
		return
	}
	for i := range records {
		records[i].Start = round3(starts[i].Seconds())
		records[i].End = round3(starts[i+1].Seconds())
	}
}

// record adds to the chunk records the checks and the measures of each
// chunk, and to res what the extra takes and the checks billed.
func (ck *chunkChecks) record(a *planner.Action, res *state.Resource, records []state.ChunkRecord) {
	for i := range records {
		r := &records[i]
		h := ck.heard[i]
		if h == nil {
			if p := ck.prior[r.Fingerprint]; p != nil && p.SHA256 == r.SHA256 {
				r.Loudness, r.Lead, r.Tail, r.Listen = p.Loudness, p.Lead, p.Tail, p.Listen
			}
			continue
		}
		r.Loudness = state.LoudnessOf(h.rend.Loudness)
		r.Lead, r.Tail = round3(h.rend.Lead.Seconds()), round3(h.rend.Tail.Seconds())
		if ck.takes[i] > 1 {
			h.rec.Takes = ck.takes[i]
		}
		r.Listen = h.rec
	}
	res.BilledCharacters += ck.chars
	res.Edit().BilledAudioSeconds += ck.secs
	if a.Type == planner.Check && a.Prior != nil {
		res.CreatedAt = a.Prior.CreatedAt
		res.BilledCharacters += a.Prior.BilledCharacters
		res.Edit().BilledAudioSeconds += a.Prior.Details().BilledAudioSeconds
	}
}
