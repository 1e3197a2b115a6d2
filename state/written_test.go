package state

import (
	"context"
	"strings"
	"testing"
)

// An output noted as written survives a process that dies before its
// record (the next reader sees it, with its hash), and the record of its
// address forgets it.
func TestWrittenSurvivesAKillAndIsForgotten(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	out := Output{Path: "build/a.wav", SHA256: "abc", Size: 3}
	if err := rec.NoteWritten("synthesis.a", "fp-a", []Output{out}); err != nil {
		t.Fatal(err)
	}
	if err := rec.NoteWritten("synthesis.b", "fp-b", []Output{{Path: "build/b.wav", SHA256: "def"}}); err != nil {
		t.Fatal(err)
	}
	lk.Unlock() // die without Close
	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Written) != 2 || got.Written[0] != (Written{Path: "build/a.wav", Address: "synthesis.a", SHA256: "abc", Size: 3, Fingerprint: "fp-a"}) {
		t.Fatalf("written after the kill: %+v", got.Written)
	}
	_, lk2, rec2 := openLocked(t, dir)
	defer lk2.Unlock()
	if err := rec2.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	if err := rec2.Remove("synthesis.b"); err != nil {
		t.Fatal(err)
	}
	if err := rec2.Close(); err != nil {
		t.Fatal(err)
	}
	if w := mustRead(t, b).Written; len(w) != 0 {
		t.Fatalf("recorded or removed addresses are still written: %+v", w)
	}
}

// A journal naming a path outside the tree is refused, like a state file.
func TestJournalWithHostilePathRefused(t *testing.T) {
	for _, bad := range []string{"../victim.txt", "/etc/passwd"} {
		dir := t.TempDir()
		b, lk, rec := openLocked(t, dir)
		r := sampleResource("a")
		r.Outputs = []Output{{Path: bad, SHA256: "00"}}
		line, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.a": r}})
		if err := rec.Record("synthesis.ok", sampleResource("ok")); err != nil {
			t.Fatal(err)
		}
		rec.store.(*journalStore).j.f.Write(line)
		lk.Unlock()
		if _, err := b.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "outputs[0].path") {
			t.Errorf("journal with output %q: %v", bad, err)
		}
	}
}
