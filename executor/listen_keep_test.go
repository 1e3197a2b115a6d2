package executor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
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
