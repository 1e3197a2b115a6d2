package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/join"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// ChunkDir is where, below the manifest directory, the audio of chunks is
// kept when the output cache is off (-cache=off): a cache of its own, so
// that a chunk paid for is never paid again, whatever stops an apply.
var ChunkDir = filepath.Join(owned.CacheDir, "chunks")

// chunkStore is where the chunks of chunked syntheses are kept: the
// output cache's local store, or a private one below the manifest
// directory (ChunkDir), opened on first use.
type chunkStore struct {
	once  sync.Once
	local *cache.Local
	err   error
}

// store returns the store of chunks for op's apply.
func (op *synthesisOp) store() (*cache.Local, error) {
	if k := op.files.kept; k != nil {
		return k.cache.Local, nil
	}
	cs := &op.chunks
	cs.once.Do(func() {
		cs.local, cs.err = cache.OpenLocal(op.files.abs(filepath.ToSlash(ChunkDir)))
		if cs.err != nil {
			cs.err = fmt.Errorf("open the chunk store %s: %w", ChunkDir, cs.err)
		}
	})
	return cs.local, cs.err
}

// applyChunks performs a chunked synthesis: the chunks not in the store
// are synthesized, up to op.parallelism at once, each kept in the store
// (durably) as it completes; then all are joined, in order, from the
// store into the declared output, which appears once complete and valid,
// and the resource is recorded with its chunks. A chunk in the store is
// never synthesized again (unless the plan asks for every chunk afresh,
// -replace), so an apply stopped or killed mid-chapter pays again only
// for the chunks in flight.
func (op *synthesisOp) applyChunks(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	store, err := op.store()
	if err != nil {
		return result{}, err
	}
	base, err := op.request(a)
	if err != nil {
		return result{}, err
	}
	format, _ := contract.Resolve(base.AudioConfig)
	al := newAllowance(a)
	billed, err := op.synthesizeChunks(ctx, a, al, base, store, format)
	var ck *chunkChecks
	if err == nil && listens(a) {
		ck, err = op.checkChunks(ctx, a, al, base, store, format)
	}
	sl.Release() // every chunk is here: the join needs the disk alone
	if err != nil {
		return result{}, err
	}
	outs, records, err := op.joinChunks(ctx, a, store, format, ck)
	if err != nil {
		return result{}, err
	}
	res := &state.Resource{Outputs: outs, BilledCharacters: billed}
	res.WithDetails(state.Details{Chunks: records})
	var secs float64
	if ck != nil {
		ck.record(a, res, records)
		billed, secs = billed+ck.chars, ck.secs
	}
	r, err := op.files.record(a, res, billed, secs)
	r.takes = ck.extra()
	if cerr := ck.err(); err == nil && cerr != nil {
		r.checkErr = fmt.Errorf("%s: listening checks not made: %w; the chunks' audio is joined and recorded without them, and the next plan prices them", a.Desired.Outputs[0].Path, cerr)
	}
	return r, err
}

// synthesizeChunks synthesizes the chunks of a that store lacks (all of
// them when the plan asks for them afresh) and returns the characters
// billed. A failure does not cancel the chunks in flight: each one that
// completes is kept. No chunk starts once the apply is asked to stop, and
// none when they would bill more than the plan priced (see chunksToBill).
func (op *synthesisOp) synthesizeChunks(ctx context.Context, a *planner.Action, al *allowance, base *speechapi.SynthesisRequest, store *cache.Local, format contract.Format) (int64, error) {
	chunks := a.Desired.Details().Chunks
	todo, err := op.chunksToBill(ctx, a, al, store)
	if err != nil {
		return 0, err
	}
	var g errgroup.Group
	g.SetLimit(max(op.parallelism, 1))
	var mu sync.Mutex
	var billed int64
	var errs []error
	for _, i := range todo {
		ch := chunks[i]
		if op.stops.stopped(ctx) {
			mu.Lock()
			errs = append(errs, fmt.Errorf("chunk %d of %d not started: %w", i+1, len(chunks), ErrInterrupted))
			mu.Unlock()
			break
		}
		g.Go(func() error {
			err := op.synthesizeChunk(ctx, a, base, ch, store, format)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("chunk %d of %d: %w", i+1, len(chunks), err))
				return nil
			}
			billed += ch.Characters
			return nil
		})
	}
	g.Wait()
	if len(errs) > 0 {
		return billed, errors.Join(errs...)
	}
	return billed, nil
}

// chunksToBill returns the indexes of the chunks of a that store lacks
// (fetched from the remote cache where only that has them), all of them
// when the plan asks for them afresh. Before any is billed it refuses
// (allowance) chunks that bill more than the plan priced: a chunk the
// plan found in the cache or the state and that is gone since (removed
// by cache gc, say) is planned again, not paid for unseen.
func (op *synthesisOp) chunksToBill(ctx context.Context, a *planner.Action, al *allowance, store *cache.Local) ([]int, error) {
	fresh := a.Chunks != nil && a.Chunks.Fresh
	var todo []int
	var chars int64
	for i, ch := range a.Desired.Details().Chunks {
		if !fresh && op.cached(ctx, store, ch.Fingerprint) {
			continue
		}
		todo = append(todo, i)
		chars += ch.Characters
	}
	missing := fmt.Sprintf("%d of %d chunks not in the cache", len(todo), len(a.Desired.Details().Chunks))
	if (a.Type == planner.Check || a.Type == planner.Restore) && len(todo) > 0 {
		return nil, fmt.Errorf("listen: %s: the audio of each chunk is checked, and %s; 'voxform apply -replace=%s' synthesizes them again (billed)", a.Address, missing, a.Address)
	}
	if err := al.chars(chars, missing); err != nil {
		return nil, err
	}
	return todo, nil
}

// cached reports whether the store holds the chunk fp, fetching it from
// the remote cache when only that has it.
func (op *synthesisOp) cached(ctx context.Context, store *cache.Local, fp string) bool {
	if store.Has(fp) {
		return true
	}
	k := op.files.kept
	if k == nil || k.cache.Remote == nil {
		return false
	}
	e, err := k.cache.Fetch(ctx, fp)
	return err == nil && e != nil
}

// synthesizeChunk synthesizes one chunk over the synthesis's transport
// into a scratch file, checks it, and keeps it in store under the
// chunk's fingerprint, durably, before it returns.
func (op *synthesisOp) synthesizeChunk(ctx context.Context, a *planner.Action, base *speechapi.SynthesisRequest, ch planner.DesiredChunk, store *cache.Local, format contract.Format) error {
	req := *base
	req.Text = ch.Text
	f, err := os.CreateTemp("", "voxform-chunk-*")
	if err != nil {
		return fmt.Errorf("create a scratch file: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := op.send(ctx, a.Desired.Transport, &req, f); err != nil {
		return err
	}
	if err := audioValidator(format)(f.Name()); err != nil {
		return fmt.Errorf("validate the chunk's audio: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("hash the chunk's audio: %w", err)
	}
	e := &cache.Entry{Fingerprint: ch.Fingerprint, Kind: string(manifest.KindSynthesis), CreatedAt: time.Now().UTC(),
		Files: []cache.File{{Role: roleAudio, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}}}
	if err := store.Store(e, map[string]string{roleAudio: f.Name()}); err != nil {
		return fmt.Errorf("keep the chunk: %w", err)
	}
	return nil
}

// send makes one synthesis call over transport, writing the audio to w.
func (op *synthesisOp) send(ctx context.Context, transport string, req *speechapi.SynthesisRequest, w io.Writer) error {
	var err error
	switch transport {
	case manifest.TransportSSE:
		_, err = op.client.SynthesizeStream(ctx, req, w)
	case manifest.TransportWebSocket:
		err = op.sessions.session(ctx, func() error { _, err := op.client.SynthesizeRealtime(ctx, req, w); return err })
	default:
		_, err = op.client.Synthesize(ctx, req, w)
	}
	if err != nil {
		return fmt.Errorf("synthesize over %s: %w", transportName(transport), err)
	}
	return nil
}

// joinChunks joins the chunks of a, in order, streamed one at a time from
// store, into the declared output (join.NewJoiner for its container),
// writes the cue files from where the joiner put each chunk, and commits
// them once the audio is valid. It returns the outputs (the audio first)
// and the chunk records. A Check action whose recorded output is in
// place and made of the chunks the store holds writes nothing (see
// inPlace): its chunks are placed by a join that keeps no byte.
func (op *synthesisOp) joinChunks(ctx context.Context, a *planner.Action, store *cache.Local, format contract.Format, ck *chunkChecks) ([]state.Output, []state.ChunkRecord, error) {
	if op.inPlace(a, store) {
		records, _, err := joinFrom(a, store, format, &sink{}, ck)
		return append([]state.Output(nil), a.Prior.Outputs...), records, err
	}
	out, err := op.files.output(a, a.Desired.Outputs[0].Path)
	if err != nil {
		return nil, nil, err
	}
	defer out.Abort()
	op.files.measure(ctx, out, format)
	records, starts, err := joinFrom(a, store, format, out, ck)
	if err != nil {
		return nil, nil, err
	}
	var cues *cueFiles
	if hasCues(a) {
		list, err := chunkCues(a, starts)
		if err != nil {
			return nil, nil, err
		}
		if cues, err = op.files.writeCues(a, list); err != nil {
			return nil, nil, err
		}
		defer cues.Abort()
	}
	o, err := out.CommitWith(audioCheck(format))
	if err != nil {
		return nil, nil, err
	}
	outs, err := commitCues(o, cues)
	return outs, records, err
}

// joinFrom joins the chunks of a from store into w, and returns their
// records, placed (chunkChecks.place), and where each starts and the last
// ends. Without checks, a chunk whose cached audio is not the recorded
// one is refused (recordedChunk); with them, the store's audio is the
// chunk's take, which is checked unless its check is recorded.
func joinFrom(a *planner.Action, store *cache.Local, format contract.Format, w io.WriteSeeker, ck *chunkChecks) ([]state.ChunkRecord, []time.Duration, error) {
	var pcm *audio.Format
	if !format.Headered() {
		f, err := format.Audio()
		if err != nil {
			return nil, nil, err
		}
		pcm = &f
	}
	j, err := join.NewJoiner(format.AudioContainer(), w, pcm)
	if err != nil {
		return nil, nil, err
	}
	records := make([]state.ChunkRecord, len(a.Desired.Details().Chunks))
	starts := make([]time.Duration, 0, len(records)+1)
	for i, ch := range a.Desired.Details().Chunks {
		starts = append(starts, j.Duration())
		f, err := chunkAudio(store, ch.Fingerprint)
		if err == nil && ck == nil {
			err = recordedChunk(a, ch.Fingerprint, f)
		}
		if err == nil {
			err = appendBlob(j, store, f)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("join chunk %d of %d: %w", i+1, len(records), err)
		}
		records[i] = state.ChunkRecord{Fingerprint: ch.Fingerprint, Characters: ch.Characters, SHA256: f.SHA256, Size: f.Size}
	}
	starts = append(starts, j.Duration())
	if err := j.Close(); err != nil {
		return nil, nil, err
	}
	ck.place(records, starts)
	return records, starts, nil
}

// appendBlob appends the stored audio f to j.
func appendBlob(j join.Joiner, store *cache.Local, f cache.File) error {
	r, err := store.OpenBlob(f.SHA256, f.Size)
	if err != nil {
		return err
	}
	defer r.Close()
	return j.Append(r)
}

// inPlace reports whether a is a Check action whose recorded output is
// in place and made of the chunks store holds, as recorded: joining them
// again would write it as it is.
func (op *synthesisOp) inPlace(a *planner.Action, store *cache.Local) bool {
	p := a.Prior
	if a.Type != planner.Check || p == nil || len(p.Outputs) == 0 || len(p.Details().Chunks) != len(a.Desired.Details().Chunks) || p.Outputs[0].Path != a.Desired.Outputs[0].Path {
		return false
	}
	for i, ch := range a.Desired.Details().Chunks {
		f, err := chunkAudio(store, ch.Fingerprint)
		if err != nil || p.Details().Chunks[i].Fingerprint != ch.Fingerprint || p.Details().Chunks[i].SHA256 != f.SHA256 {
			return false
		}
	}
	sum, err := op.files.hashOf(p.Outputs[0].Path)
	return err == nil && sum == p.Outputs[0].SHA256
}

// sink is where a join that keeps no byte writes: it counts them.
type sink struct{ at, size int64 }

func (s *sink) Write(b []byte) (int, error) {
	s.at += int64(len(b))
	s.size = max(s.size, s.at)
	return len(b), nil
}

func (s *sink) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += s.at
	case io.SeekEnd:
		off += s.size
	}
	if off < 0 {
		return 0, errors.New("seek before the start")
	}
	s.at = off
	return off, nil
}

// chunkAudio is the audio file of the chunk fp in store.
func chunkAudio(store *cache.Local, fp string) (cache.File, error) {
	e, err := store.Entry(fp)
	if err != nil {
		return cache.File{}, err
	}
	if e == nil {
		return cache.File{}, fmt.Errorf("the chunk %.12s is no longer in the cache %s", fp, store.Dir())
	}
	f, ok := e.File(roleAudio)
	if !ok {
		return cache.File{}, fmt.Errorf("the cache entry of chunk %.12s has no audio: %w", fp, cache.ErrCorrupt)
	}
	return f, nil
}
