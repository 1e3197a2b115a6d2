package planner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/voxform/voxform/internal/heaptest"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Planning resources that have not changed allocates little for each:
// the working maps and lists of a plan are sized for its resources, not
// grown to 100,000 one by one (the plan after an apply of 100,000 makes
// no action, and spent a quarter of its time growing them), and an
// action is made only for a resource that changes.
func TestPlanUnchangedAllocates(t *testing.T) {
	const n = 20000
	m := promptLibrary(n)
	desired, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	st := state.New()
	sum := fmt.Sprintf("%064x", 1)
	for _, d := range desired {
		r := &state.Resource{Kind: string(d.Kind), Status: state.StatusComplete, Fingerprint: d.Fingerprint,
			Outputs: []state.Output{{Path: d.Outputs[0].Path, SHA256: sum, Size: 10}}}
		r.SetRequestJSON(requestOf(t, d))
		st.Resources[d.Address] = r
	}
	hashes := map[string]state.FileHash{}
	var outputs []string
	bytes := heaptest.Allocated(func() { outputs = planner.OutputFiles(st) })
	for _, p := range outputs {
		hashes[p] = state.FileHash{Exists: true, SHA256: sum, Size: 10}
	}
	hash := func(p string) (state.FileHash, error) { return hashes[p], nil }
	var p *planner.Plan
	bytes += heaptest.Allocated(func() {
		p, err = planner.Compute(planner.Input{Desired: desired, State: st, Hash: hash})
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.HasChanges() || p.NoOps != n {
		t.Fatalf("%d no-ops, %v", p.NoOps, p.Summary())
	}
	t.Logf("%d B a resource", bytes/n)
	if per := bytes / n; per > 250 { // 723 when they grew, 468 with an Action made for each (280 B)
		t.Errorf("planning %d unchanged resources allocated %d B a resource; want at most 250", n, per)
	}
}

// A synthesis's fingerprint is computed without an allocation for each
// object of its request (its keys are sorted in place).
func TestFingerprintAllocations(t *testing.T) {
	req := map[string]any{
		"model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "speed": 1.0, "text": "नमस्ते",
		"audio_config": map[string]any{"container": "wav", "sample_rate": 48000, "num_channels": 1, "sample_width": 2, "encoding": "linear_pcm"},
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := planner.Fingerprint("synthesis", req); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4 { // 11 when each object's keys were a new slice and the buffer grew
		t.Errorf("a fingerprint made %.0f allocations; want at most 4 (the buffer, the request's copy, the hash and its hex)", allocs)
	}
}

// A plan built against a state that records the same requests holds the
// state's bytes of each request and its fingerprint, not copies, and
// builds each synthesis without a map of its own (the plan after an apply
// of 100,000 held every request twice). A recorded request that differs
// from the built one under the same fingerprint (a state edited by hand)
// is not taken.
func TestBuildAgainstStateShares(t *testing.T) {
	const n = 5000
	m := promptLibrary(n)
	hash := func(string) (state.FileHash, error) { return state.FileHash{}, nil }
	var alone []*planner.Desired
	var err error
	aloneBytes := heaptest.Allocated(func() { alone, err = planner.Build(m, hash) })
	if err != nil {
		t.Fatal(err)
	}
	st := state.New()
	for _, d := range alone {
		r := &state.Resource{Kind: string(d.Kind), Status: state.StatusComplete, Fingerprint: strings.Clone(d.Fingerprint)}
		r.SetRequestJSON(requestOf(t, d))
		st.Resources[d.Address] = r
	}
	forged := st.Resources[alone[0].Address]
	forged.SetRequestJSON(bytes.Replace(forged.RequestJSON(), []byte("prompt"), []byte("forged"), 1))
	var against []*planner.Desired
	againstBytes := heaptest.Allocated(func() { against, err = planner.BuildWith(m, hash, planner.BuildOptions{State: st}) })
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range against {
		r := st.Resources[d.Address]
		req, aloneReq := requestOf(t, d), requestOf(t, alone[i])
		if d.Fingerprint != alone[i].Fingerprint || !bytes.Equal(req, aloneReq) {
			t.Fatalf("%s: built against the state, fingerprint %s and request %s; alone %s and %s", d.Address, d.Fingerprint, req, alone[i].Fingerprint, aloneReq)
		}
		shared := unsafe.SliceData(req) == unsafe.SliceData(r.RequestJSON())
		if shared == (r == forged) {
			t.Fatalf("%s: request shared with the state's: %v", d.Address, shared)
		}
		if r != forged && unsafe.StringData(d.Fingerprint) != unsafe.StringData(r.Fingerprint) {
			t.Fatalf("%s: fingerprint not shared with the state's", d.Address)
		}
	}
	t.Logf("%d B a synthesis alone, %d B against the state", aloneBytes/n, againstBytes/n)
	if per := againstBytes / n; per > 640 { // 1,104 when each request was a new map and a copy
		t.Errorf("building %d syntheses against their state allocated %d B each; want at most 640", n, per)
	}
}

// A plan's Build lets go of each synthesis of the manifest once built, so
// that 100,000 of them are not held beside the resources built from them;
// Build alone leaves the manifest as it was.
func TestBuildReleasesSyntheses(t *testing.T) {
	m := promptLibrary(3)
	hash := func(string) (state.FileHash, error) { return state.FileHash{}, nil }
	kept, err := planner.Build(m, hash)
	if err != nil || len(kept) != 3 || m.Syntheses[2] == nil {
		t.Fatalf("Build: %v, %d built, manifest %v", err, len(kept), m.Syntheses)
	}
	released, err := planner.BuildWith(m, hash, planner.BuildOptions{Release: true})
	if err != nil || len(released) != 3 {
		t.Fatalf("BuildWith: %v, %d built", err, len(released))
	}
	for i, s := range m.Syntheses {
		if s != nil {
			t.Errorf("synthesis %d still held after a releasing build", i)
		}
		if released[i].Fingerprint != kept[i].Fingerprint {
			t.Errorf("%s: %s released, %s kept", released[i].Address, released[i].Fingerprint, kept[i].Fingerprint)
		}
	}
}

// promptLibrary is a manifest of n syntheses of one block, menu["p00000"]
// and on, each its own prompt and output.
func promptLibrary(n int) *manifest.Manifest {
	v := &manifest.Voice{Name: "narrator", Address: "voice.narrator", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}
	m := &manifest.Manifest{Dir: "/project", Voices: []*manifest.Voice{v}}
	for i := range n {
		key := fmt.Sprintf("p%05d", i)
		m.Syntheses = append(m.Syntheses, synth("menu", key, "narrator", v, fmt.Sprintf("prompt %d", i), "build/menu/"+key+".wav"))
	}
	return m
}

// requestOf is d's canonical request, failing t when it cannot be made.
func requestOf(t *testing.T, d *planner.Desired) json.RawMessage {
	t.Helper()
	req, err := d.RequestJSON()
	if err != nil {
		t.Fatal(err)
	}
	return req
}
