package executor

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	audioloudness "github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// journalHolds reports whether the journal file in dir records the check
// fp in a job of the service at base.
func journalHolds(dir, base, fp string) bool {
	_, _, ok := loadCheckJournal(dir, base, time.Now()).holder(fp, base)
	return ok
}

// A check a batch job heard is kept (checkFile.Keep) while the journal
// still records it, and forgotten only then: a kill between the two never
// loses a check paid for.
func TestBatchCheckKeptBeforeForgotten(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	files := r.files("k", 3, false)
	var mu sync.Mutex
	kept := map[string]bool{}
	for i := range files {
		fp := files[i].Fingerprint
		files[i].Keep = func(h checkHeard) error {
			if !journalHolds(r.dir, r.cl.BaseURL(), fp) {
				t.Errorf("check %.12s is kept after the journal forgot it", fp)
			}
			mu.Lock()
			kept[fp] = true
			mu.Unlock()
			return nil
		}
	}
	_, errs := b.transcribe(context.Background(), files)
	for i, f := range files {
		if errs[i] != nil {
			t.Fatalf("file %d: %v", i, errs[i])
		}
		if !kept[f.Fingerprint] {
			t.Errorf("file %d was heard and never kept by the batcher", i)
		}
	}
	if j := r.drained(); len(j) != 0 {
		t.Errorf("the journal still records %+v", j)
	}
}

// A heard check that cannot be kept fails, and stays recorded in the
// journal, so that the next apply collects it again from its job (paid
// once); the others are forgotten.
func TestBatchCheckNotKeptStaysRecorded(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	files := r.files("n", 2, false)
	full := errors.New("disk full")
	files[0].Keep = func(checkHeard) error { return full }
	files[1].Keep = func(checkHeard) error { return nil }
	_, errs := b.transcribe(context.Background(), files)
	if !errors.Is(errs[0], full) || errs[1] != nil {
		t.Fatalf("errs %v, want the keep's failure for file 0 only", errs)
	}
	// The journal is written once the job's checks are handed over.
	for i := 0; i < 40 && journalHolds(r.dir, r.cl.BaseURL(), files[1].Fingerprint); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if journalHolds(r.dir, r.cl.BaseURL(), files[1].Fingerprint) {
		t.Errorf("a check heard and kept is still recorded in the journal")
	}
	if !journalHolds(r.dir, r.cl.BaseURL(), files[0].Fingerprint) {
		t.Errorf("a check heard and not kept is forgotten in the journal: the next apply pays for it again")
	}
}

// TestListenBatchRoundKeptAsJobsEnd: a round's checks in two jobs (two
// languages), the second slow: once the first job is collected and its
// checks forgotten in the journal, the cache holds them, though the round
// (heardBatch) still waits for the slow job; a kill then loses nothing
// paid for.
func TestListenBatchRoundKeptAsJobsEnd(t *testing.T) {
	r := newCheckRig(t, emulator.Options{})
	b, _, _ := r.batcher()
	files := r.files("h", 2, false)
	ta := r.files("t", 1, false)[0]
	ta.Request, _ = planner.NewCheckRequest("ta-IN", 75, 16000)
	ta.Fingerprint = planner.CheckFingerprint(strings.Repeat("a", 64), ta.Request)
	files = append(files, ta)
	local, err := cache.OpenLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{client: r.cl, batcher: b}
	ps := make([]*pending, len(files))
	for i, f := range files {
		ps[i] = &pending{wav: f.Path, req: f.Request, h: heard{rend: audioloudness.Rendered{Seconds: f.Seconds}, rec: &state.Listen{Fingerprint: f.Fingerprint}}}
		ps[i].fl, _ = l.claim(f.Fingerprint)
	}
	var slow atomic.Value
	r.pre = func(req *http.Request) error {
		id, _ := slow.Load().(string)
		if req.Method == http.MethodGet && id == "" {
			for _, j := range loadCheckJournal(r.dir, r.cl.BaseURL(), time.Now()).jobs {
				if j.LanguageCode == "ta-IN" {
					id = j.JobID
					slow.Store(id)
				}
			}
		}
		if id != "" && req.Method == http.MethodGet && strings.Contains(req.URL.Path, id) && !strings.Contains(req.URL.Path, "files") {
			time.Sleep(time.Second)
		}
		return nil
	}
	errs := make([]error, len(ps))
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.heardBatch(context.Background(), checkStore{local: local}, ps, []int{0, 1, 2}, errs)
	}()
	held, seen := false, false // hi-IN's job recorded; then collected
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !seen; time.Sleep(10 * time.Millisecond) {
		hi := journalHolds(r.dir, r.cl.BaseURL(), files[0].Fingerprint) || journalHolds(r.dir, r.cl.BaseURL(), files[1].Fingerprint)
		held = held || hi
		if held && !hi && journalHolds(r.dir, r.cl.BaseURL(), ta.Fingerprint) {
			seen = true
			for _, f := range files[:2] {
				if !local.Has(f.Fingerprint) {
					t.Errorf("check %.12s is forgotten in the journal and not in the cache while the round waits", f.Fingerprint)
				}
			}
		}
	}
	<-done
	if !seen {
		t.Fatal("the hi-IN job was never collected before the slow ta-IN job")
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("check %d: %v", i, err)
		} else if ps[i].doc == nil || ps[i].h.billed == 0 {
			t.Errorf("check %d heard with no document or nothing billed", i)
		}
	}
}
