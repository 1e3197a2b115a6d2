package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/fieldtest"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// TestDesiredDetailsIsZero: isZero, which spares the build reflect's
// allocation, knows every field of DesiredDetails.
func TestDesiredDetailsIsZero(t *testing.T) {
	fieldtest.EachSet(t, &DesiredDetails{}, true, (*DesiredDetails).isZero)
}

// TestDesiredJSON: a plan file holds a desired resource's details beside
// its other fields, in the order they were always written, and reads them
// back; those not saved stay out.
func TestDesiredJSON(t *testing.T) {
	d := (&Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Block: "synthesis.a", request: json.RawMessage(`{"text":"<b>"}`),
		Fingerprint: "ff", Outputs: []Output{{Path: "a.wav"}}, Characters: 3, Voice: "v"}).
		WithDetails(DesiredDetails{Sources: []Source{{Role: "embedding", Path: "e.bin"}}, DependsOn: []string{"embedding.e"},
			Consent: "ok", Listen: &manifest.Listen{}, Written: "<b>"})
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"address":"synthesis.a","kind":"synthesis","block":"synthesis.a","wire":{},"request":{"text":"\u003cb\u003e"},` +
		`"fingerprint":"ff","sources":[{"role":"embedding","path":"e.bin"}],"depends_on":["embedding.e"],` +
		`"outputs":[{"path":"a.wav"}],"characters":3,"consent":"ok"}`
	if string(b) != want {
		t.Fatalf("plan file form:\n%s\nwant\n%s", b, want)
	}
	var back Desired
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if x := back.Details(); back.Address != d.Address || len(x.Sources) != 1 || x.DependsOn[0] != "embedding.e" || x.Consent != "ok" ||
		x.Listen != nil || x.Written != "" {
		t.Fatalf("read back: %+v %+v", back, x)
	}
}

func TestActionDetailsIsZero(t *testing.T) {
	fieldtest.EachSet(t, &ActionDetails{}, true, (*ActionDetails).isZero)
}

// TestActionJSON: a plan file holds an action's details among its other
// fields, in the order they were always written, and reads them back.
func TestActionJSON(t *testing.T) {
	a := (&Action{Address: "synthesis.a", Type: Repair, Reasons: []string{"r"}, Cost: Cost{Characters: 2}, DependsOn: []string{"embedding.e"},
		Chunks: &ChunkWork{Total: 2, Synthesize: 1}, Listen: &ListenWork{Items: 1}}).
		WithDetails(ActionDetails{Moves: []Rename{{From: "a", To: "b"}}, Removes: []string{"c"}, MovedFrom: "synthesis.z", RenderFrom: "t.json",
			RestoreFrom: "local", Overwrite: []string{"<o>"}, OverwriteSHA256: map[string]string{"<o>": "ff"}, Refused: "no"})
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"address":"synthesis.a","action":"repair","reasons":["r"],"cost":{"characters":2,"audio_seconds":0,"unknown_audio_inputs":0},` +
		`"chunks":{"total":2,"synthesize":1},"listen":` + string(mustJSON(t, &ListenWork{Items: 1})) + `,"depends_on":["embedding.e"],` +
		`"moves":[{"from":"a","to":"b"}],"removes":["c"],"moved_from":"synthesis.z","render_from":"t.json","restore_from":"local",` +
		`"overwrite":["\u003co\u003e"],"overwrite_sha256":{"\u003co\u003e":"ff"},"refused":"no"}`
	if string(b) != want {
		t.Fatalf("plan file form:\n%s\nwant\n%s", b, want)
	}
	var back Action
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(&back)
	if err != nil || string(again) != want {
		t.Fatalf("read back and written again:\n%s (%v)", again, err)
	}
	plain, err := json.Marshal(&Action{Address: "synthesis.b", Type: Create})
	if err != nil || string(plain) != `{"address":"synthesis.b","action":"create","cost":{"characters":0,"audio_seconds":0,"unknown_audio_inputs":0}}` {
		t.Fatalf("an action without details: %s (%v)", plain, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRequestJSONDerivedIsChecked: a synthesis's request is made again
// from its typed request when asked for, and refused when it no longer
// matches the fingerprint it was planned with, never recorded wrong.
func TestRequestJSONDerivedIsChecked(t *testing.T) {
	w := helloWire()
	fp, err := Fingerprint(string(manifest.KindSynthesis), synthesisRequest(&w, nil))
	if err != nil {
		t.Fatal(err)
	}
	d := &Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Wire: Wire{Synthesis: &w}, Fingerprint: fp, derive: wireIsCanonical}
	raw, err := d.RequestJSON()
	if err != nil || !strings.Contains(string(raw), `"text":"hello"`) {
		t.Fatalf("derived: %s, %v", raw, err)
	}
	if d.request != nil {
		t.Fatal("a derived request is held")
	}
	changed := w
	changed.Text = "goodbye"
	d.Wire.Synthesis = &changed
	if raw, err := d.RequestJSON(); err == nil || !strings.Contains(err.Error(), fp) {
		t.Fatalf("a request that no longer matches its fingerprint: %s, %v", raw, err)
	}
}

// TestDerivationShared: a synthesis whose wire request is its canonical
// one and that takes no embedding shares one derivation (a prompt library
// of 100,000 holds no derivation each); so do those whose canonical
// request differs from their wire request in the same way but for the
// text (the live profile's prompts), each deriving its own text. One with
// an embedding holds its own.
func TestDerivationShared(t *testing.T) {
	w := helloWire()
	var b builder
	d := &Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Wire: Wire{Synthesis: &w}}
	if err := b.derived(d, synthesisRequest(&w, nil), d.Wire.Synthesis, nil); err != nil || d.derive != wireIsCanonical {
		t.Fatalf("plain synthesis: %p (shared %p), %v", d.derive, wireIsCanonical, err)
	}
	emb := map[string]any{"file_sha256": "ab"}
	if err := b.derived(d, synthesisRequest(&w, emb), d.Wire.Synthesis, emb); err != nil || d.derive == wireIsCanonical || !d.derive.sameWire {
		t.Fatalf("with an embedding: %+v, %v", d.derive, err)
	}
	if _, err := d.RequestJSON(); err != nil {
		t.Fatal(err)
	}
	documented := w
	documented.Model = "other"
	if err := b.derived(d, synthesisRequest(&documented, nil), &documented, nil); err != nil || d.derive.sameWire || d.derive.canonical.Model != "other" {
		t.Fatalf("another canonical request: %+v, %v", d.derive, err)
	}
	w2, documented2 := w, documented
	w2.Text, documented2.Text = "goodbye", "goodbye"
	d2 := &Desired{Address: "synthesis.b", Kind: manifest.KindSynthesis, Wire: Wire{Synthesis: &w2}}
	if err := b.derived(d2, synthesisRequest(&documented2, nil), &documented2, nil); err != nil || d2.derive != d.derive {
		t.Fatalf("the same canonical request but for the text: %p, not the shared %p (%v)", d2.derive, d.derive, err)
	}
	for x, want := range map[*Desired]*contract.SynthesisRequest{d: &documented, d2: &documented2} {
		got, err := x.RequestJSON()
		raw, _, _ := canonicalRequest(new([]byte), string(manifest.KindSynthesis), synthesisRequest(want, nil))
		if err != nil || string(got) != string(raw) {
			t.Errorf("%s: derived %s (%v), want %s", x.Address, got, err, raw)
		}
	}
	if err := b.derived(d2, synthesisRequest(&documented2, emb), &documented2, emb); err != nil || d2.derive == d.derive || d2.derive.sameWire {
		t.Fatalf("with an embedding: %p shared (%v)", d2.derive, err)
	}
}

// TestPinnedAsHoldsItsRequest: a pinned resource keeps the request
// declared now under the fingerprint recorded, so it holds the bytes
// rather than deriving them (which would no longer match), and the
// resource it was copied from is unchanged.
func TestPinnedAsHoldsItsRequest(t *testing.T) {
	w := helloWire()
	var b builder
	d := &Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Wire: Wire{Synthesis: &w}}
	if err := b.derived(d, synthesisRequest(&w, nil), d.Wire.Synthesis, nil); err != nil {
		t.Fatal(err)
	}
	want, err := d.RequestJSON()
	if err != nil {
		t.Fatal(err)
	}
	was, err := pinnedAs(d, &state.Resource{Fingerprint: strings.Repeat("e", 64)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := was.RequestJSON()
	if err != nil || string(got) != string(want) || was.Fingerprint != strings.Repeat("e", 64) {
		t.Fatalf("pinned: %s, %v, fingerprint %s", got, err, was.Fingerprint)
	}
	if d.derive != wireIsCanonical || d.Fingerprint == was.Fingerprint {
		t.Fatalf("the resource pinned changed: %+v", d)
	}
}

// helloWire is a documented synthesis request, for the derivation's tests.
func helloWire() contract.SynthesisRequest {
	format, _ := contract.Resolve(&contract.AudioConfig{Container: "wav"})
	return contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: contract.ProfileDocumented.Wire(format)}
}
