package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
	audioloudness "github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
	"golang.org/x/sync/errgroup"
)

// listener makes the listening checks of one apply (issue 27): each take
// of a synthesis with listen: (its audio sent whole, or each chunk) is
// rendered (mono 16-bit WAV at most planner.ListenRate Hz), transcribed
// back and judged against the text that was sent (planner.Judge). A check
// is kept in the cache under its fingerprint (planner.CheckFingerprint)
// before it is judged, and looked up there before it is made, so that it
// is never paid twice. Checks up to contract.ListenRESTMax go to REST
// recognition; longer ones to batch through batcher.
type listener struct {
	client  *speechapi.Client
	batcher checkBatcher
	// emit reports each check made (EventProgress; nil: none).
	emit func(Event)

	mu sync.Mutex
	// flights are the checks made or being made in this apply, by
	// fingerprint (see claim): one check is paid for once.
	flights map[string]*flight
}

// listens reports whether a's takes are checked: its synthesis declares
// listen: and the plan found a language to hear it in (none: the plan
// says so, and prices no check).
func listens(a *planner.Action) bool {
	return a.Desired != nil && a.Desired.Details().Listen != nil && a.Listen != nil && a.Listen.Language != ""
}

// checkBatcherOf is the batcher of the apply whose batch operation is op
// (newCheckBatcher; a variable, so that tests can stand in for batch
// jobs).
var checkBatcherOf = newCheckBatcher

// maxCheckDoc bounds a check document read from the cache: the transcript
// (state.MaxHeard) and its segments.
const maxCheckDoc = 4 << 20

// checkDoc is what a check heard, as the cache keeps it: an entry of kind
// transcription under the check's fingerprint, with this JSON as its
// json file (a kind every voxform knows, so an older one's cache gc keeps
// it).
type checkDoc struct {
	API             string  `json:"api"`
	LanguageCode    string  `json:"language_code"`
	SampleRate      int     `json:"sample_rate"`
	DurationSeconds float64 `json:"duration_seconds"`
	FullTranscript  string  `json:"full_transcript"`
	RequestID       string  `json:"request_id,omitempty"`
	JobID           string  `json:"job_id,omitempty"`
}

// take is one piece of audio to check: a take of an output (Chunk -1) or
// of a chunk, in a file read by Path (headerless audio in *Raw; nil: a
// container), whose content hashes to SHA256, said from Text.
type take struct {
	Chunk  int
	Take   int // 1 for the first
	Text   string
	Path   string
	Raw    *audio.Format
	SHA256 string
}

// heard is the outcome of one check: its record (judged), the rendition's
// measures, and the audio seconds it billed (0 when the cache had it).
type heard struct {
	rec    *state.Listen
	rend   audioloudness.Rendered
	billed float64
}

// check checks tk for the action a: rendered, looked up in store by its
// fingerprint (free), else transcribed within al, kept in store, then
// judged.
func (l *listener) check(ctx context.Context, a *planner.Action, al *allowance, store checkStore, tk take) (heard, error) {
	p, err := l.prepare(ctx, a, store, tk)
	if err != nil {
		return heard{}, err
	}
	defer p.done()
	if err := l.hear(ctx, a, al, store, []*pending{p}, 1)[0]; err != nil {
		return heard{}, err
	}
	h, err := l.judge(a, p)
	if err != nil {
		return heard{billed: p.h.billed}, err // heard, paid for, not judged
	}
	return h, nil
}

// pending is a take rendered and looked up: doc is set once it is heard
// (from the cache, or transcribed).
type pending struct {
	tk  take
	wav string
	req planner.CheckRequest
	h   heard
	doc *checkDoc
	fl  *flight // the flight of its check, once claimed (see listener.claim)
}

// done removes p's rendition.
func (p *pending) done() {
	if p.wav != "" {
		os.Remove(p.wav)
	}
}

// prepare renders tk, chooses its request and looks its check up in
// store; the caller calls done.
func (l *listener) prepare(ctx context.Context, a *planner.Action, store checkStore, tk take) (*pending, error) {
	wav, rend, err := renderCheck(ctx, tk.Path, tk.Raw)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	p := &pending{tk: tk, wav: wav, h: heard{rend: rend}}
	req, ok := planner.NewCheckRequest(a.Listen.Language, rend.Seconds, rend.Rate)
	if !ok {
		p.done()
		return nil, fmt.Errorf("listen: no speech recognition hears %q audio of %.1f s", a.Listen.Language, rend.Seconds)
	}
	fp := planner.CheckFingerprint(tk.SHA256, req)
	p.req = req
	p.h.rec = &state.Listen{Fingerprint: fp, API: req.API, LanguageCode: req.LanguageCode, Rate: req.Rate, Seconds: round3(rend.Seconds)}
	if p.doc, err = store.doc(ctx, fp); err != nil { // an unreadable document is none (doc)
		p.done()
		return nil, err
	}
	return p, nil
}

// hear transcribes, within al, every take of ps the cache did not hold,
// and keeps each in store: those REST takes up to parallelism at once,
// those longer in one call to the batcher, so that a round of chunks
// shares its batch jobs. A take whose check another take of this apply
// is making already (the same fingerprint: the same audio and request)
// waits for that one's document instead, and bills nothing (see claim).
// errs[i] is the outcome of ps[i].
func (l *listener) hear(ctx context.Context, a *planner.Action, al *allowance, store checkStore, ps []*pending, parallelism int) []error {
	errs := make([]error, len(ps))
	var long, waits []int
	var g errgroup.Group
	g.SetLimit(max(parallelism, 1))
	for i, p := range ps {
		if p.doc != nil {
			continue
		}
		var lead bool
		if p.fl, lead = l.claim(p.h.rec.Fingerprint); !lead {
			waits = append(waits, i)
			continue
		}
		if errs[i] = al.seconds(p.h.rend.Seconds, itemName(a, p.tk.Chunk)); errs[i] != nil {
			l.settle(p, nil)
			continue
		}
		if p.req.API != contract.APIREST {
			long = append(long, i)
			continue
		}
		g.Go(func() error {
			errs[i] = l.heardREST(ctx, store, p)
			l.settle(p, p.doc)
			return nil
		})
	}
	l.heardBatch(ctx, store, ps, long, errs)
	g.Wait()
	for _, i := range waits {
		errs[i] = l.await(ctx, a, al, store, ps[i])
	}
	return errs
}

// flight is one check being made in an apply: its document once it is
// heard and kept (nil until then, and for good when it failed).
type flight struct {
	done chan struct{}
	doc  *checkDoc
}

// claim returns the flight of the check fp, and whether the caller leads
// it (makes the check, then settles it); the first to ask leads.
func (l *listener) claim(fp string) (*flight, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.flights[fp]; f != nil {
		return f, false
	}
	if l.flights == nil {
		l.flights = map[string]*flight{}
	}
	f := &flight{done: make(chan struct{})}
	l.flights[fp] = f
	return f, true
}

// settle ends the flight p leads with doc, its check heard and kept
// (nil: it failed, and the next to ask makes it again).
func (l *listener) settle(p *pending, doc *checkDoc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p.fl.doc = doc
	if doc == nil && l.flights[p.h.rec.Fingerprint] == p.fl {
		delete(l.flights, p.h.rec.Fingerprint)
	}
	close(p.fl.done)
}

// await is p waiting for the check another take leads: its document,
// billed by that take; if that take failed, p is heard again.
func (l *listener) await(ctx context.Context, a *planner.Action, al *allowance, store checkStore, p *pending) error {
	l.mu.Lock()
	f := l.flights[p.h.rec.Fingerprint]
	l.mu.Unlock()
	if f != nil {
		select {
		case <-f.done:
		case <-ctx.Done():
			return fmt.Errorf("listen: %s: %w", itemName(a, p.tk.Chunk), ctx.Err())
		}
		if f.doc != nil {
			p.doc = f.doc
			return nil
		}
	}
	return l.hear(ctx, a, al, store, []*pending{p}, 1)[0]
}

// heardREST transcribes p through REST recognition and keeps it.
func (l *listener) heardREST(ctx context.Context, store checkStore, p *pending) error {
	doc, err := l.transcribeREST(ctx, p.h.rec.Fingerprint, p.wav, p.req, p.h.rend.Seconds)
	if err != nil {
		return err
	}
	if err := store.keep(p.h.rec.Fingerprint, doc); err != nil {
		return err
	}
	p.heardAs(doc)
	return nil
}

// heardBatch transcribes the takes ps[long] in batch jobs, in one call,
// setting errs of those that fail. The batcher keeps each check heard
// (checkFile.Keep) before its job's journal forgets it; one it did not
// keep is kept here.
func (l *listener) heardBatch(ctx context.Context, store checkStore, ps []*pending, long []int, errs []error) {
	if len(long) == 0 {
		return
	}
	files := make([]checkFile, len(long))
	kept := make([]*checkDoc, len(long))
	for j, i := range long {
		p, fp := ps[i], ps[i].h.rec.Fingerprint
		files[j] = checkFile{Fingerprint: fp, Path: p.wav, Seconds: p.h.rend.Seconds, Request: p.req,
			Keep: func(h checkHeard) error {
				doc := l.batchDoc(p, h)
				if err := store.keep(fp, doc); err != nil {
					return err
				}
				kept[j] = doc
				return nil
			}}
	}
	got, ferrs := l.batcher.transcribe(ctx, files)
	for j, i := range long {
		if len(got) != len(files) || len(ferrs) != len(files) {
			errs[i] = errors.New("listen: the batch of checks answered for other files")
		} else {
			errs[i] = l.heardJob(ps[i], files[j], got[j], ferrs[j], j, kept)
		}
		l.settle(ps[i], ps[i].doc)
	}
}

// heardJob is the outcome of the batch check j of a round, p (file f),
// heard as got or failed with ferr: kept[j] is its document once the
// batcher kept it. A file that failed is not
// read in kept: a batcher given up on may still be keeping it.
func (l *listener) heardJob(p *pending, f checkFile, got checkHeard, ferr error, j int, kept []*checkDoc) error {
	if ferr != nil {
		return fmt.Errorf("listen: %w", ferr)
	}
	if kept[j] == nil {
		if err := f.Keep(got); err != nil {
			return err
		}
	}
	p.heardAs(kept[j])
	return nil
}

// batchDoc is the check document of p as a batch job heard it.
func (l *listener) batchDoc(p *pending, h checkHeard) *checkDoc {
	return &checkDoc{API: p.req.API, LanguageCode: p.req.LanguageCode, SampleRate: p.req.Rate, DurationSeconds: round3(p.h.rend.Seconds),
		FullTranscript: l.client.RedactText(h.Text), JobID: h.JobID}
}

// heardAs records doc, a check just paid for and kept, as p's, and bills
// its seconds.
func (p *pending) heardAs(doc *checkDoc) {
	p.doc, p.h.billed = doc, p.h.rend.Seconds
}

// judge judges p's transcript against its text, as a's listen: asks.
func (l *listener) judge(a *planner.Action, p *pending) (heard, error) {
	rec := p.h.rec
	rec.Heard = clipHeard(l.client.RedactText(p.doc.FullTranscript))
	if err := planner.Judge(rec, p.tk.Text, a.Desired.Details().Listen); err != nil {
		return heard{}, fmt.Errorf("listen: judge %s: %w", itemName(a, p.tk.Chunk), err)
	}
	if err := rec.Check(); err != nil {
		return heard{}, fmt.Errorf("listen: %s: %w", itemName(a, p.tk.Chunk), err)
	}
	l.report(a, p.tk, rec)
	return p.h, nil
}

// report reports the check rec of tk as it is made.
func (l *listener) report(a *planner.Action, tk take, rec *state.Listen) {
	if l.emit == nil {
		return
	}
	p := &ListenProgress{Chunk: tk.Chunk, Of: len(a.Desired.Details().Chunks), Take: tk.Take, Pass: rec.Pass}
	if !rec.Pass {
		p.Why = planner.FailureLine(rec)
	}
	l.emit(Event{Kind: EventProgress, Address: a.Address, Action: string(a.Type), Listen: p})
}

// transcribeREST sends the rendition at wav to REST recognition.
func (l *listener) transcribeREST(ctx context.Context, fp, wav string, req planner.CheckRequest, secs float64) (*checkDoc, error) {
	doc := &checkDoc{API: req.API, LanguageCode: req.LanguageCode, SampleRate: req.Rate, DurationSeconds: round3(secs)}
	src, err := speechapi.FileSource(wav)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	src.Name = "listen__" + fp[:16] + ".wav"
	res, err := l.client.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: req.LanguageCode, Format: req.Format})
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	doc.FullTranscript, doc.RequestID = l.client.RedactText(res.Transcript), l.client.RedactText(res.RequestID)
	return doc, nil
}

// renderCheck writes the rendition of the audio at path (headerless in
// *raw; nil: a container) to a scratch file, and returns its path and
// measures; the caller removes it.
func renderCheck(ctx context.Context, path string, raw *audio.Format) (string, audioloudness.Rendered, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", audioloudness.Rendered{}, fmt.Errorf("render the audio: %w", err)
	}
	defer in.Close()
	out, err := os.CreateTemp("", "voxform-listen-*.wav")
	if err != nil {
		return "", audioloudness.Rendered{}, fmt.Errorf("render the audio: %w", err)
	}
	rend, err := audioloudness.Render(ctx, in, raw, planner.ListenRate, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", audioloudness.Rendered{}, err
	}
	return out.Name(), rend, nil
}

// checkStore is where check documents are kept: the output cache's local
// store (fetching from its remote, and pushing to it), or the chunk store.
type checkStore struct {
	local *cache.Local
	// fetch, when set, brings the entry fp from the remote cache into
	// local when only the remote has it.
	fetch func(ctx context.Context, fp string) bool
	// kept, when set, has each check document kept pushed to the remote
	// cache (keeper.keepCheck).
	kept *keeper
	// emit reports a document that cannot be read (nil: none).
	emit func(Event)
}

// doc returns the check document kept under fp, or nil when none is. A
// document that cannot be one (another kind, over maxCheckDoc, not JSON
// of a check, its entry or blob corrupt) is as good as none: it is
// reported as a warning and the check is made again, its new document
// replacing it.
func (s checkStore) doc(ctx context.Context, fp string) (*checkDoc, error) {
	if !s.local.Has(fp) && (s.fetch == nil || !s.fetch(ctx, fp)) {
		return nil, nil
	}
	doc, err := s.read(fp)
	if errors.Is(err, cache.ErrCorrupt) || errors.Is(err, fs.ErrNotExist) {
		if s.emit != nil {
			s.emit(Event{Kind: EventWarning, Err: fmt.Errorf("%w; the check is made again", err)})
		}
		return nil, nil
	}
	return doc, err
}

// read reads the check document kept under fp (nil: none); one that is
// not a check document is an error wrapping cache.ErrCorrupt.
func (s checkStore) read(fp string) (*checkDoc, error) {
	e, err := s.local.Entry(fp)
	if err != nil || e == nil {
		return nil, err
	}
	f, ok := e.File("json")
	if e.Kind != string(manifest.KindTranscription) || !ok || f.Size > maxCheckDoc {
		return nil, fmt.Errorf("listen: the cache entry of check %.12s is not a check document of at most %d MiB: %w", fp, maxCheckDoc>>20, cache.ErrCorrupt)
	}
	r, err := s.local.OpenBlob(f.SHA256, f.Size)
	if err != nil {
		return nil, fmt.Errorf("listen: read check %.12s: %w", fp, err)
	}
	defer r.Close()
	var doc checkDoc
	if err := json.NewDecoder(io.LimitReader(r, maxCheckDoc)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("listen: read check %.12s: %w: %w", fp, err, cache.ErrCorrupt)
	}
	if doc.API == "" || doc.LanguageCode == "" {
		return nil, fmt.Errorf("listen: read check %.12s: not a check document (no api or language_code): %w", fp, cache.ErrCorrupt)
	}
	return &doc, nil
}

// keep stores doc under fp, durably, before the check is judged: a check
// paid for is never paid again, whatever stops the apply. It is then
// pushed to the remote cache, if any, in the background.
func (s checkStore) keep(fp string, doc *checkDoc) error {
	f, err := os.CreateTemp("", "voxform-check-*.json")
	if err != nil {
		return fmt.Errorf("listen: keep the check: %w", err)
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	err = json.NewEncoder(cw).Encode(doc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("listen: keep the check: %w", err)
	}
	e := &cache.Entry{Fingerprint: fp, Kind: string(manifest.KindTranscription), CreatedAt: time.Now().UTC(),
		Files: []cache.File{{Role: "json", SHA256: hex.EncodeToString(h.Sum(nil)), Size: cw.n}},
		Meta:  cache.Meta{DurationSeconds: doc.DurationSeconds}}
	if err := s.local.Store(e, map[string]string{"json": f.Name()}); err != nil {
		return fmt.Errorf("listen: keep the check: %w", err)
	}
	s.kept.keepCheck(e)
	return nil
}

// checkStore is the store of op's checks (see store).
func (op *synthesisOp) checkStore() (checkStore, error) {
	local, err := op.store()
	if err != nil {
		return checkStore{}, err
	}
	cs := checkStore{local: local, fetch: func(ctx context.Context, fp string) bool { return op.cached(ctx, local, fp) }}
	if k := op.files.kept; k != nil && k.cache.Local == local {
		cs.kept = k
	}
	if op.listen != nil {
		cs.emit = op.listen.emit
	}
	return cs, nil
}

// itemName names a's check of chunk i (-1: the output sent whole).
func itemName(a *planner.Action, i int) string {
	if i < 0 {
		return "the listening check of " + a.Address
	}
	return "the listening check of " + a.Address + " " + planner.ChunkName(i, len(a.Desired.Details().Chunks))
}

// clipHeard bounds a transcript as the state keeps it (state.MaxHeard),
// cut at a character boundary.
func clipHeard(s string) string {
	if len(s) <= state.MaxHeard {
		return s
	}
	cut := state.MaxHeard
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
