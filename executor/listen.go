package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
}

// listens reports whether a's takes are checked: its synthesis declares
// listen: and the plan found a language to hear it in (none: the plan
// says so, and prices no check).
func listens(a *planner.Action) bool {
	return a.Desired != nil && a.Desired.Listen != nil && a.Listen != nil && a.Listen.Language != ""
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
	if p.doc, err = store.doc(ctx, fp); errors.Is(err, cache.ErrCorrupt) {
		err = store.local.Remove(fp) // not a check document: made again
	}
	if err != nil {
		p.done()
		return nil, err
	}
	return p, nil
}

// hear transcribes, within al, every take of ps the cache did not hold,
// and keeps each in store: those REST takes up to parallelism at once,
// those longer in one call to the batcher, so that a round of chunks
// shares its batch jobs. errs[i] is the outcome of ps[i].
func (l *listener) hear(ctx context.Context, a *planner.Action, al *allowance, store checkStore, ps []*pending, parallelism int) []error {
	errs := make([]error, len(ps))
	var long []int
	var g errgroup.Group
	g.SetLimit(max(parallelism, 1))
	for i, p := range ps {
		if p.doc != nil {
			continue
		}
		if errs[i] = al.seconds(p.h.rend.Seconds, itemName(a, p.tk.Chunk)); errs[i] != nil {
			continue
		}
		if p.req.API != contract.APIREST {
			long = append(long, i)
			continue
		}
		g.Go(func() error {
			errs[i] = l.heardREST(ctx, store, p)
			return nil
		})
	}
	l.heardBatch(ctx, store, ps, long, errs)
	g.Wait()
	return errs
}

// heardREST transcribes p through REST recognition and keeps it.
func (l *listener) heardREST(ctx context.Context, store checkStore, p *pending) error {
	doc, err := l.transcribeREST(ctx, p.h.rec.Fingerprint, p.wav, p.req, p.h.rend.Seconds)
	if err != nil {
		return err
	}
	return p.heardAs(store, doc)
}

// heardBatch transcribes the takes ps[long] in batch jobs, in one call,
// and keeps each, setting errs of those that fail.
func (l *listener) heardBatch(ctx context.Context, store checkStore, ps []*pending, long []int, errs []error) {
	if len(long) == 0 {
		return
	}
	files := make([]checkFile, len(long))
	for j, i := range long {
		p := ps[i]
		files[j] = checkFile{Fingerprint: p.h.rec.Fingerprint, Path: p.wav, Seconds: p.h.rend.Seconds, Request: p.req}
	}
	got, ferrs := l.batcher.transcribe(ctx, files)
	for j, i := range long {
		if len(got) != len(files) || len(ferrs) != len(files) {
			errs[i] = errors.New("listen: the batch of checks answered for other files")
			continue
		}
		if ferrs[j] != nil {
			errs[i] = fmt.Errorf("listen: %w", ferrs[j])
			continue
		}
		p := ps[i]
		doc := &checkDoc{API: p.req.API, LanguageCode: p.req.LanguageCode, SampleRate: p.req.Rate, DurationSeconds: round3(p.h.rend.Seconds),
			FullTranscript: l.client.RedactText(got[j].Text), JobID: got[j].JobID}
		errs[i] = p.heardAs(store, doc)
	}
}

// heardAs keeps doc, a check just paid for, in store before anything
// else is done with it, and bills its seconds.
func (p *pending) heardAs(store checkStore, doc *checkDoc) error {
	if err := store.keep(p.h.rec.Fingerprint, doc); err != nil {
		return err
	}
	p.doc, p.h.billed = doc, p.h.rend.Seconds
	return nil
}

// judge judges p's transcript against its text, as a's listen: asks.
func (l *listener) judge(a *planner.Action, p *pending) (heard, error) {
	rec := p.h.rec
	rec.Heard = clipHeard(l.client.RedactText(p.doc.FullTranscript))
	if err := planner.Judge(rec, p.tk.Text, a.Desired.Listen); err != nil {
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
	p := &ListenProgress{Chunk: tk.Chunk, Of: len(a.Desired.Chunks), Take: tk.Take, Pass: rec.Pass}
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
// store (fetching from its remote), or the chunk store.
type checkStore struct {
	local *cache.Local
	// fetch, when set, brings the entry fp from the remote cache into
	// local when only the remote has it.
	fetch func(ctx context.Context, fp string) bool
}

// doc returns the check document kept under fp, or nil when none is.
func (s checkStore) doc(ctx context.Context, fp string) (*checkDoc, error) {
	if !s.local.Has(fp) && (s.fetch == nil || !s.fetch(ctx, fp)) {
		return nil, nil
	}
	e, err := s.local.Entry(fp)
	if err != nil || e == nil {
		return nil, err
	}
	f, ok := e.File("json")
	if e.Kind != string(manifest.KindTranscription) || !ok || f.Size > maxCheckDoc {
		return nil, fmt.Errorf("listen: the cache entry of check %.12s is not a check document: %w", fp, cache.ErrCorrupt)
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
	return &doc, nil
}

// keep stores doc under fp, durably, before the check is judged: a check
// paid for is never paid again, whatever stops the apply.
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
	return nil
}

// checkStore is the store of op's checks (see store).
func (op *synthesisOp) checkStore() (checkStore, error) {
	local, err := op.store()
	if err != nil {
		return checkStore{}, err
	}
	return checkStore{local: local, fetch: func(ctx context.Context, fp string) bool { return op.cached(ctx, local, fp) }}, nil
}

// itemName names a's check of chunk i (-1: the output sent whole).
func itemName(a *planner.Action, i int) string {
	if i < 0 {
		return "the listening check of " + a.Address
	}
	return "the listening check of " + a.Address + " " + planner.ChunkName(i, len(a.Desired.Chunks))
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
