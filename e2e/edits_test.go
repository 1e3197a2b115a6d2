package e2e_test

import (
	"math"
	"os"
	"slices"
	"testing"
)

// editWalk is what TestExamples does to an applied example after proving
// it idempotent: the edits its users make (SPEC sections 4 to 6), each
// checked against the emulator's statistics.
type editWalk struct {
	// rename is a list of edits of main.yaml (old, new) that change output
	// paths (an output, or a transcription's output_dir) and nothing else;
	// moves resources then move their files, without a call.
	rename [][2]string
	moves  int
	// free are transcript outputs (txt, srt, vtt; paths after the rename)
	// damaged beside their intact JSON transcript, the first deleted and the
	// others edited: each is rendered again from that JSON, without a call.
	free []string
	// paid are outputs damaged the same way that only the service can
	// make again: audio, embeddings, JSON transcripts, and transcript
	// formats with no JSON beside them.
	paid []string
	// billedWithCache counts the damaged resources the output cache cannot
	// restore in the same plan: a vc-v1 synthesis whose embedding is
	// restored in it has no final request until the embedding is back.
	billedWithCache int
}

// walk renames, damages and finally destroys an applied example: a rename
// moves files at no cost and keeps their bytes; damaged outputs are
// restored from the cache, and repaired, for free from the recorded JSON
// where a transcript has one and otherwise billed exactly as the damaged
// resources were; destroy removes
// every output without a call and leaves an empty state.
func (w *editWalk) walk(t *testing.T, e *emu, p *project, outputs int) {
	if len(w.rename) > 0 {
		t.Run("move", func(t *testing.T) { w.move(t, e, p, outputs) })
	}
	if len(w.free) > 0 {
		t.Run("re-render", func(t *testing.T) { repair(t, e, p, outputs, w.free, true) })
	}
	if len(w.paid) > 0 {
		// Restored first, while the cache holds what the state records: a
		// transcript made again without the cache (the paid repair) may
		// differ byte for byte from the cached one, and a restore writes
		// only what the state records.
		t.Run("restore", func(t *testing.T) { restoreDamaged(t, e, p, w.paid, w.billedWithCache) })
		t.Run("repair", func(t *testing.T) { repair(t, e, p, outputs, w.paid, false) })
	}
	t.Run("destroy", func(t *testing.T) {
		calls := e.stats(t).calls()
		p.mustRun(append([]string{"destroy", "-auto-approve"}, p.vars...)...)
		if n := e.stats(t).calls() - calls; n != 0 {
			t.Fatalf("destroy made %d API calls with nothing pending", n)
		}
		if left := p.filesUnder("build"); len(left) != 0 {
			t.Fatalf("destroy left %v", left)
		}
		if st := p.readState(); len(st.Resources) != 0 {
			t.Fatalf("state still records %d resources", len(st.Resources))
		}
	})
}

func (w *editWalk) move(t *testing.T, e *emu, p *project, outputs int) {
	before := p.readState()
	for _, r := range w.rename {
		editFile(t, p.path("main.yaml"), r[0], r[1])
	}
	if _, sum := p.plan(); sum.Move != w.moves || sum.changes() != w.moves || sum.Cost.Characters != 0 || sum.Cost.AudioSeconds != 0 {
		t.Fatalf("plan after changing output paths: %+v, want %d free moves and nothing else", sum, w.moves)
	}
	calls := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("moving outputs made %d API calls, want 0", n)
	}
	after := checkOutputs(t, p, outputs)
	moved := 0
	for addr, r := range after.Resources {
		old := before.Resources[addr]
		if old == nil || len(old.Outputs) != len(r.Outputs) {
			t.Fatalf("%s: outputs %v, before the move %v", addr, r.Outputs, old)
		}
		changed := false
		for i, o := range r.Outputs {
			if o.SHA256 != old.Outputs[i].SHA256 {
				t.Errorf("%s: %s changed content in a move", addr, o.Path)
			}
			if o.Path != old.Outputs[i].Path {
				changed = true
				if p.exists(old.Outputs[i].Path) {
					t.Errorf("%s: %s still exists after moving to %s", addr, old.Outputs[i].Path, o.Path)
				}
			}
		}
		if changed {
			moved++
		}
	}
	if moved != w.moves {
		t.Fatalf("%d resources moved their files, want %d", moved, w.moves)
	}
	p.assertNoChanges()
}

// repair deletes the first of paths and edits the others, then applies:
// an edited file is no longer voxform's, so its resource is refused until
// -overwrite says to replace it; free repairs must make no call at all;
// paid ones must bill exactly what the damaged resources had cost. Either way every restored file is valid,
// and synthesized audio, embeddings and rendered transcripts come back
// byte for byte.
func repair(t *testing.T, e *emu, p *project, outputs int, paths []string, free bool) {
	st := p.readState()
	damaged := map[string]*stateResource{} // address -> resource
	var chars int64
	var secs float64
	var embeddings int64
	edited := map[string]bool{} // addresses with an edited output
	for i, path := range paths {
		addr, r := owner(t, st, path)
		if damaged[addr] == nil && free {
			damaged[addr] = r
		} else if damaged[addr] == nil {
			damaged[addr] = r
			chars += r.BilledCharacters
			secs += r.BilledAudioSecs
			if r.Kind == "embedding" {
				embeddings++
			}
		}
		if i == 0 {
			if err := os.Remove(p.path(path)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(p.path(path))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x55
		if err := os.WriteFile(p.path(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
		edited[addr] = true
	}
	// The billed path: without the output cache (which would restore the
	// damaged outputs for free: see restoreDamaged).
	var nocache []string
	if !free {
		nocache = []string{"-cache=off"}
	}
	plain, _ := p.plan(nocache...)
	for _, c := range plain {
		if edited[c.Address] != (c.Refused != "") {
			t.Fatalf("%s: refused %q, want refused only where an output was edited by hand", c.Address, c.Refused)
		}
	}
	changes, sum := p.plan(append([]string{"-overwrite"}, nocache...)...)
	if sum.Repair != len(damaged) || sum.changes() != len(damaged) {
		t.Fatalf("plan after damaging %v: %+v, want %d repairs and nothing else", paths, sum, len(damaged))
	}
	for _, c := range changes {
		if damaged[c.Address] == nil {
			t.Fatalf("plan repairs %s, whose outputs are intact", c.Address)
		}
		if rendered := c.RenderFrom != ""; rendered != free {
			t.Fatalf("%s: repair rendered from %q, want a free re-render %v: %v", c.Address, c.RenderFrom, free, c.Reasons)
		}
	}
	if free && (sum.Cost.Characters != 0 || sum.Cost.AudioSeconds != 0) {
		t.Fatalf("re-rendering transcripts costs %+v, want nothing", sum.Cost)
	}
	before := e.stats(t)
	if r := p.apply(append([]string{"-overwrite"}, nocache...)...); r.code != 0 {
		t.Fatalf("%s", r)
	}
	after := e.stats(t)
	calls := after.calls() - before.calls()
	switch {
	case free && calls != 0:
		t.Fatalf("re-rendering transcripts from their JSON made %d API calls, want 0", calls)
	case !free && calls == 0:
		t.Fatalf("repairing %v made no API call", paths)
	case after.BilledCharacters-before.BilledCharacters != chars:
		t.Fatalf("repair billed %d characters, the damaged resources had cost %d", after.BilledCharacters-before.BilledCharacters, chars)
	case math.Abs(after.BilledAudioSeconds-before.BilledAudioSeconds-secs) > 0.01:
		t.Fatalf("repair billed %.3f s of audio, the damaged resources had cost %.3f s", after.BilledAudioSeconds-before.BilledAudioSeconds, secs)
	case after.EmbeddingsCreated-before.EmbeddingsCreated != embeddings:
		t.Fatalf("repair created %d embeddings, want %d", after.EmbeddingsCreated-before.EmbeddingsCreated, embeddings)
	}
	now := checkOutputs(t, p, outputs)
	for addr, r := range now.Resources {
		if damaged[addr] == nil || (r.Kind == "transcription" && !free) {
			continue // a new transcript may name its new job or request
		}
		for i, o := range r.Outputs {
			if was := damaged[addr].Outputs[i]; o.Path != was.Path || o.SHA256 != was.SHA256 {
				t.Errorf("%s: %s was not restored to its recorded content", addr, was.Path)
			}
		}
	}
	for addr, r := range now.Resources {
		if damaged[addr] == nil && !slices.Equal(r.Outputs, st.Resources[addr].Outputs) {
			t.Errorf("%s: outputs changed although they were intact", addr)
		}
	}
	p.assertNoChanges()
	p.verify()
}

// owner finds the resource recording an output path.
func owner(t testing.TB, st *stateFile, path string) (string, *stateResource) {
	t.Helper()
	for addr, r := range st.Resources {
		for _, o := range r.Outputs {
			if o.Path == path {
				return addr, r
			}
		}
	}
	t.Fatalf("no resource records %s", path)
	return "", nil
}

// restoreDamaged deletes the first of paths and edits the others, as
// repair does, then plans and applies with the output cache: each damaged
// resource but billed is restored from the local cache for free, with no
// API call when billed is 0, and every output holds again what the state
// recorded.
func restoreDamaged(t *testing.T, e *emu, p *project, paths []string, billed int) {
	damaged := map[string]bool{}
	st := p.readState()
	for i, path := range paths {
		addr, _ := owner(t, st, path)
		damaged[addr] = true
		if i == 0 {
			if err := os.Remove(p.path(path)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(p.path(path))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x55
		if err := os.WriteFile(p.path(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changes, sum := p.plan("-overwrite")
	if sum.Restore != len(damaged)-billed || sum.Repair != billed || sum.changes() != len(damaged) || (billed == 0) != (sum.Cost.Characters == 0 && sum.Cost.AudioSeconds == 0) {
		t.Fatalf("plan after damaging %v: %+v, want %d free restores, %d repairs and nothing else", paths, sum, len(damaged)-billed, billed)
	}
	for _, c := range changes {
		if !damaged[c.Address] || c.Action == "restore" && c.RestoreFrom != "local" {
			t.Fatalf("%s: %s from %q", c.Address, c.Action, c.RestoreFrom)
		}
	}
	before := e.stats(t).calls()
	if r := p.apply("-overwrite"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if n := e.stats(t).calls() - before; billed == 0 && n != 0 {
		t.Fatalf("restoring %v made %d API calls", paths, n)
	}
	p.assertNoChanges() // every output holds what the state recorded
}
