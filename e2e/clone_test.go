package e2e_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
)

// TestClonedVoiceCascade replaces the reference recording of the
// cloned-voice example with another valid recording (the same take, half
// as loud). A dependency change propagates (SPEC section 5): the plan
// replaces the embedding and every synthesis in its voice, each synthesis
// naming the embedding as its reason, and costs exactly their characters;
// apply creates one embedding and bills exactly those syntheses, whose
// audio then differs, since the service speaks in the voice of the
// embedding it is given.
//
// conformance: VC-001, VC-004, VC-010, VC-011, VC-014
func TestClonedVoiceCascade(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 5, NoEspeak: true})
	p := newProject(t, "cloned-voice", e)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	before := checkOutputs(t, p, 3)
	voiced := map[string]int64{} // syntheses in the cloned voice -> billed characters
	for addr, r := range before.Resources {
		if r.Kind == "synthesis" {
			voiced[addr] = r.BilledCharacters
		}
	}
	if len(voiced) != 2 {
		t.Fatalf("the example records %d syntheses, want 2", len(voiced))
	}

	quieter(t, p.path("refs/founder.wav"))
	changes, sum := p.plan()
	var chars int64
	for _, c := range changes {
		switch {
		case c.Address == "embedding.founder" && c.Action == "replace" && len(c.Reasons) > 0:
		case voiced[c.Address] != 0 && c.Action == "replace" && reasonHas(c.Reasons, "embedding founder"):
			chars += c.Cost.Characters
		default:
			t.Fatalf("plan after a new reference recording: %s %s %v, want the embedding and each synthesis in its voice replaced, naming the embedding", c.Action, c.Address, c.Reasons)
		}
	}
	var want int64
	for _, n := range voiced {
		want += n
	}
	if sum.Replace != 3 || sum.changes() != 3 || chars != want || sum.Cost.Characters != want {
		t.Fatalf("plan after a new reference recording: %+v, want 3 replaced costing %d characters", sum, want)
	}

	s0 := e.stats(t)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	s1 := e.stats(t)
	if got := s1.EmbeddingsCreated - s0.EmbeddingsCreated; got != 1 {
		t.Errorf("apply created %d embeddings, want 1", got)
	}
	if got := s1.Syntheses - s0.Syntheses; got != 2 {
		t.Errorf("apply made %d syntheses, want 2", got)
	}
	if got := s1.BilledCharacters - s0.BilledCharacters; got != want {
		t.Errorf("apply billed %d characters, want %d", got, want)
	}
	after := checkOutputs(t, p, 3)
	for addr, r := range after.Resources {
		if r.Outputs[0].SHA256 == before.Resources[addr].Outputs[0].SHA256 {
			t.Errorf("%s: output unchanged by a new reference recording", addr)
		}
	}
	p.assertNoChanges()
}

// quieter halves every sample of a 16-bit WAV file in place: another valid
// recording of the same length.
func quieter(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, data, err := audio.ParseWAV(b)
	if err != nil || f.BitsPerSample != 16 {
		t.Fatalf("%s: not 16-bit WAV (%+v): %v", path, f, err)
	}
	for i := 0; i+1 < len(data); i += 2 {
		v := int16(binary.LittleEndian.Uint16(data[i:]))
		binary.LittleEndian.PutUint16(data[i:], uint16(v/2))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func reasonHas(reasons []string, s string) bool {
	for _, r := range reasons {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}
