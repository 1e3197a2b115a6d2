package e2e_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator"
)

// TestIVREdits walks the IVR example through the edits its users make
// (SPEC sections 4 to 6): one CSV row edited replaces exactly that prompt
// and bills exactly its text; a changed output template moves files for
// free (also after a move killed half-way); a deleted or edited output is
// repaired with one call each, to the very bytes it had; destroy removes
// every output and forgets every resource.
func TestIVREdits(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 3, NoEspeak: true})
	p := newProject(t, "ivr-prompts", e)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	first := checkOutputs(t, p, 18)

	t.Run("edit one row", func(t *testing.T) {
		const oldText, newText = `"For billing, press one."`, `"For billing and payments, press one."`
		editFile(t, p.path("prompts/menu.csv"), oldText, newText)
		changes, sum := p.plan()
		addr := `synthesis.menu_en["billing"]`
		if sum.changes() != 1 || sum.Replace != 1 || changes[0].Address != addr || !slices.Contains(changes[0].Reasons, "text") {
			t.Fatalf("plan after editing one row: %+v %+v, want one replace of %s naming text", sum, changes, addr)
		}
		chars := int64(utf8.RuneCountInString(strings.Trim(newText, `"`)))
		if sum.Cost.Characters != chars {
			t.Fatalf("plan costs %d characters, want %d", sum.Cost.Characters, chars)
		}
		before := e.stats(t)
		if r := p.apply(); r.code != 0 {
			t.Fatalf("%s", r)
		}
		after := e.stats(t)
		if got := after.BilledCharacters - before.BilledCharacters; got != chars || after.calls()-before.calls() != 1 {
			t.Fatalf("apply billed %d characters in %d calls, want %d in 1", got, after.calls()-before.calls(), chars)
		}
		st := checkOutputs(t, p, 18)
		for a, r := range st.Resources {
			if changed := r.Outputs[0].SHA256 != first.Resources[a].Outputs[0].SHA256; changed != (a == addr) {
				t.Errorf("%s: output changed %v", a, changed)
			}
		}
		p.assertNoChanges()
	})

	t.Run("move outputs", func(t *testing.T) {
		before := p.readState()
		editFile(t, p.path("main.yaml"), `"build/ivr/en/menu/${each.key}.ulaw"`, `"build/ivr/en/prompts/${each.key}.ulaw"`)
		// One file is already at its new path, as a move killed between its
		// rename and its record leaves it: it must still move for free.
		if err := os.MkdirAll(p.path("build/ivr/en/prompts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p.path("build/ivr/en/menu/agent.ulaw"), p.path("build/ivr/en/prompts/agent.ulaw")); err != nil {
			t.Fatal(err)
		}
		if _, sum := p.plan(); sum.changes() != 4 || sum.Move != 4 || sum.Cost.Characters != 0 {
			t.Fatalf("plan after changing the output template: %+v, want 4 free moves", sum)
		}
		calls := e.stats(t).calls()
		if r := p.apply(); r.code != 0 {
			t.Fatalf("%s", r)
		}
		if n := e.stats(t).calls() - calls; n != 0 {
			t.Fatalf("moving outputs made %d API calls, want 0", n)
		}
		st := checkOutputs(t, p, 18)
		for a, r := range st.Resources {
			old := before.Resources[a].Outputs[0]
			now := r.Outputs[0]
			if now.SHA256 != old.SHA256 {
				t.Errorf("%s: content changed in a move", a)
			}
			if strings.HasPrefix(a, "synthesis.menu_en") != (now.Path != old.Path) || strings.Contains(now.Path, "/en/menu/") {
				t.Errorf("%s: moved from %s to %s", a, old.Path, now.Path)
			}
		}
		if left := p.filesUnder("build/ivr/en/menu"); len(left) != 0 {
			t.Fatalf("old paths still hold %v", left)
		}
		p.assertNoChanges()
	})

	t.Run("repair", func(t *testing.T) {
		st := p.readState()
		deleted := st.Resources["synthesis.welcome"].Outputs[0]
		edited := st.Resources[`synthesis.menu_hi["balance"]`].Outputs[0]
		if err := os.Remove(p.path(deleted.Path)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p.path(edited.Path))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x55
		if err := os.WriteFile(p.path(edited.Path), b, 0o644); err != nil {
			t.Fatal(err)
		}
		// The edited file is no longer voxform's: refused until -overwrite.
		if changes, _ := p.plan(); len(changes) != 2 || (changes[0].Refused != "") == (changes[1].Refused != "") {
			t.Fatalf("plan after deleting one output and editing another: %+v, want the edited one refused", changes)
		}
		// Billed again without the output cache (with it, both would be
		// free restores).
		if _, sum := p.plan("-overwrite", "-cache=off"); sum.changes() != 2 || sum.Repair != 2 {
			t.Fatalf("plan -overwrite after deleting one output and editing another: %+v, want 2 repairs", sum)
		}
		calls := e.stats(t).calls()
		if r := p.apply("-overwrite", "-cache=off"); r.code != 0 {
			t.Fatalf("%s", r)
		}
		if n := e.stats(t).calls() - calls; n != 2 {
			t.Fatalf("two repairs made %d API calls, want 2", n)
		}
		now := checkOutputs(t, p, 18)
		for _, o := range []stateOutput{deleted, edited} {
			if got := findOutput(now, o.Path); got == nil || got.SHA256 != o.SHA256 {
				t.Errorf("%s was not restored to its recorded content", o.Path)
			}
		}
		p.assertNoChanges()
		p.verify()
	})

	t.Run("destroy", func(t *testing.T) {
		calls := e.stats(t).calls()
		p.mustRun("destroy", "-auto-approve")
		if n := e.stats(t).calls() - calls; n != 0 {
			t.Fatalf("destroy made %d API calls with nothing pending", n)
		}
		if left := p.filesUnder("build"); len(left) != 0 {
			t.Fatalf("destroy left %v", left)
		}
		if st := p.readState(); len(st.Resources) != 0 {
			t.Fatalf("state still records %d resources", len(st.Resources))
		}
		if _, sum := p.plan("-cache=off"); sum.Add != 9 || sum.changes() != 9 {
			t.Fatalf("plan -cache=off after destroy: %+v, want 9 to add", sum)
		}
		// The output cache still holds what was destroyed: all of it
		// comes back for free.
		if _, sum := p.plan(); sum.Restore != 9 || sum.changes() != 9 || sum.Cost.Characters != 0 {
			t.Fatalf("plan after destroy: %+v, want 9 free restores", sum)
		}
	})
}

// editFile replaces old (which must occur once) with new in a file.
func editFile(t testing.TB, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s: %q does not occur exactly once", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func findOutput(st *stateFile, path string) *stateOutput {
	for _, r := range st.Resources {
		for i := range r.Outputs {
			if r.Outputs[i].Path == path {
				return &r.Outputs[i]
			}
		}
	}
	return nil
}
