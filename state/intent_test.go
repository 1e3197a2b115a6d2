package state

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// Intents are journaled (a reader and the next Open see them after a
// crash), folded into job_intents, and cleared; the key disappears from the
// file when none is left, so that an ordinary state diff is unchanged.
func TestJobIntentsJournaledFoldedAndCleared(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	n := 2
	a, err := rec.RecordJobIntent(JobIntent{API: "batch", Config: JobIntentConfig{Model: "stt-v2.5", LanguageCode: "hi-IN", NumSpeakers: &n}, Files: 2, Block: "calls"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || !a.Created.Equal(fixedNow()) {
		t.Fatalf("intent not filled in: %+v", a)
	}
	bi, err := rec.RecordJobIntent(JobIntent{API: "batch", Config: JobIntentConfig{Model: "stt-v2.5", LanguageCode: "en-IN"}, Files: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	if err := rec.ClearJobIntents(a.ID); err != nil {
		t.Fatal(err)
	}
	if got := rec.JobIntents(); len(got) != 1 || got[0].ID != bi.ID {
		t.Fatalf("in memory: %+v", got)
	}
	// The process dies here: the journal alone holds the intent.
	lk.Unlock()
	mid := mustRead(t, b)
	if len(mid.JobIntents) != 1 || mid.JobIntents[0].ID != bi.ID || mid.JobIntents[0].Config.LanguageCode != "en-IN" {
		t.Fatalf("replayed intents: %+v", mid.JobIntents)
	}
	_, lk2, rec2 := openLocked(t, dir) // folds the dead journal
	if got := rec2.JobIntents(); len(got) != 1 || got[0].ID != bi.ID || got[0].Files != 1 {
		t.Fatalf("after the fold of a dead journal: %+v", got)
	}
	data, _ := os.ReadFile(b.StatePath())
	if !bytes.Contains(data, []byte(`"job_intents"`)) || !bytes.Contains(data, []byte(bi.ID)) || bytes.Contains(data, []byte(a.ID)) {
		t.Fatalf("state file after fold:\n%s", data)
	}
	if err := rec2.ClearJobIntents(bi.ID); err != nil {
		t.Fatal(err)
	}
	if err := rec2.Close(); err != nil {
		t.Fatal(err)
	}
	lk2.Unlock()
	data, _ = os.ReadFile(b.StatePath())
	if bytes.Contains(data, []byte("job_intents")) {
		t.Errorf("cleared intents still in the file:\n%s", data)
	}
	if f := mustRead(t, b); len(f.JobIntents) != 0 || len(f.Resources) != 1 {
		t.Errorf("final state: %d intents, %d resources", len(f.JobIntents), len(f.Resources))
	}
}

// A journal line claiming an intent without one is refused, not ignored.
func TestJournalIntentWithoutIntentRefused(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	j, err := createJournal(b.JournalPath(), "lin", 0)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := encodeRecord(&record{Op: opIntent})
	j.f.Write(line)
	j.close()
	if _, err := b.Read(context.Background()); err == nil {
		t.Error("an intent record without an intent was accepted")
	}
}
