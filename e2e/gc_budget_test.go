package e2e_test

import (
	"os"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestGCThenEditStaysInBudget: the audiobook example applied, then
// 'cache gc -older-than 0', then a one-sentence edit under a budget of
// 1,000 characters: gc keeps the chapter's chunks (the state references
// them), so the edit is planned and billed alike, within the budget.
// (gc kept only each resource's own fingerprint: the edit was planned at
// one or two chunks and billed the whole chapter, past budget:.)
func TestGCThenEditStaysInBudget(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	p := newProject(t, "audiobook", e)
	withoutDelivery(t, p)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	p.mustRun("cache", "gc", "-older-than", "0")
	b, err := os.ReadFile(p.path("main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.path("main.yaml"), append(b, "\nbudget: { max_characters: 1000 }\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	editFile(t, p.path("chapter1.txt"), "उस रात मोहन देर तक जागता रहा।", "उस रात मोहन बहुत देर तक जागता रहा।")
	c := chunkedPlan(t, p)
	if c.Chunks.Synthesize < 1 || c.Chunks.Synthesize > 2 {
		t.Fatalf("plan after gc and the edit: %+v; want 1 or 2 chunks billed", c)
	}
	before := e.stats(t).BilledCharacters
	r := p.apply()
	billed := e.stats(t).BilledCharacters - before
	if billed > c.PlanCost || billed > 1000 {
		t.Fatalf("the edit billed %d characters, the plan priced %d, the budget 1,000\n%s", billed, c.PlanCost, r)
	}
	if r.code != 0 || billed != c.PlanCost {
		t.Errorf("apply after gc: billed %d of %d planned\n%s", billed, c.PlanCost, r)
	}
}
