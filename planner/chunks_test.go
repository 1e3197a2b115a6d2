package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// chapterText is n sentences of Hindi, each of them different.
func chapterText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "यह कहानी का वाक्य संख्या %s है, और इसमें कुछ शब्द और भी हैं। ", strings.Repeat("क", i%7+1)+fmt.Sprint(i))
		if i%9 == 8 {
			b.WriteString("<whispers> ")
		}
	}
	return b.String()
}

// chapterProject is one tts-v3.0 synthesis of text with requests of at
// most max characters.
func chapterProject(text string, max int) *manifest.Manifest {
	v := &manifest.Voice{Name: "v3", Address: "voice.v3", Model: "tts-v3.0", Voice: "Shivani", Language: "hi-IN"}
	s := synth("chapter", "", "v3", v, text, "out/chapter.wav")
	return &manifest.Manifest{Dir: "/project", Version: 1, Voices: []*manifest.Voice{v}, Syntheses: []*manifest.Synthesis{s},
		Service: manifest.Service{Profile: "documented", MaxTextChars: max}}
}

func buildOne(t *testing.T, m *manifest.Manifest) *planner.Desired {
	t.Helper()
	ds, err := planner.Build(m, fakeFS{}.hash)
	if err != nil {
		t.Fatal(err)
	}
	return ds[0]
}

// TestChunkedSynthesis: a text over the maximum is split into chunks of
// at most max characters, each with the fingerprint of a synthesis of its
// text alone; the billed characters are the chunks' (repeated tags
// included); the resource's fingerprint covers the chunks.
func TestChunkedSynthesis(t *testing.T) {
	text := chapterText(120)
	d := buildOne(t, chapterProject(text, 600))
	if len(d.Details().Chunks) < 10 {
		t.Fatalf("%d chunks of a %d-character text at 600 a request", len(d.Details().Chunks), planner.BilledCharacters(text))
	}
	var sum int64
	for i, ch := range d.Details().Chunks {
		if ch.Characters > 600 || ch.Characters != planner.BilledCharacters(ch.Text) {
			t.Errorf("chunk %d: %d characters (counted %d), over 600 or miscounted", i, ch.Characters, planner.BilledCharacters(ch.Text))
		}
		sum += ch.Characters
		if i > 0 && strings.Count(text, "<whispers>") > 0 && !strings.HasPrefix(ch.Text, "<") && strings.Contains(strings.Join(chunkTexts(d.Details().Chunks[:i]), ""), "<whispers>") {
			t.Errorf("chunk %d does not repeat the tag in effect: %.40q", i, ch.Text)
		}
		// A chunk's fingerprint is that of a synthesis of its text alone.
		one := buildOne(t, chapterProject(ch.Text, 600))
		if len(one.Details().Chunks) != 0 || one.Fingerprint != ch.Fingerprint {
			t.Errorf("chunk %d: fingerprint %.12s, a synthesis of its text has %.12s", i, ch.Fingerprint, one.Fingerprint)
		}
	}
	if sum != d.Characters || sum <= planner.BilledCharacters(text)-int64(len(d.Details().Chunks))*2 {
		t.Errorf("billed %d characters, chunks sum to %d (text %d)", d.Characters, sum, planner.BilledCharacters(text))
	}
	if got := d.RequestFields()["chunks"].([]any); len(got) != len(d.Details().Chunks) {
		t.Errorf("request lists %d chunk fingerprints, want %d", len(got), len(d.Details().Chunks))
	}
	// A text within the maximum is one request, as before.
	if short := buildOne(t, chapterProject(text, 0)); len(short.Details().Chunks) != 0 && planner.BilledCharacters(text) <= 2000 {
		t.Errorf("a text within the maximum was split")
	}
}

func chunkTexts(cs []planner.DesiredChunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

// recorded is the state of an applied chunked synthesis d.
func recorded(d *planner.Desired) *state.File {
	st := state.New()
	r := &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: d.Fingerprint, Request: d.RequestFields(),
		Outputs: []state.Output{{Path: "out/chapter.wav", SHA256: strings.Repeat("a", 64), Size: 1}}}
	for _, ch := range d.Details().Chunks {
		r.Edit().Chunks = append(r.Details().Chunks, state.ChunkRecord{Fingerprint: ch.Fingerprint, Characters: ch.Characters})
	}
	st.Resources[d.Address] = r
	return st
}

// TestChunkedPlan: a new chunked synthesis is a create of all its chunks;
// a one-sentence edit replaces it, billing only the chunks whose text
// changed (neither recorded nor cached), and says how many; chunks in the
// cache are not billed.
func TestChunkedPlan(t *testing.T) {
	text := chapterText(120)
	d := buildOne(t, chapterProject(text, 600))
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: state.New(), Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Actions[0]
	want := fmt.Sprintf("%d chunks", len(d.Details().Chunks))
	if a.Type != planner.Create || a.Chunks == nil || a.Chunks.Synthesize != len(d.Details().Chunks) || a.Cost.Characters != d.Characters ||
		a.Reasons[len(a.Reasons)-1] != want {
		t.Fatalf("create: %s %v %+v cost %d; want all %d chunks billed (%d)", a.Type, a.Reasons, a.Chunks, a.Cost.Characters, len(d.Details().Chunks), d.Characters)
	}

	st := recorded(d)
	edited := strings.Replace(text, "62 है", "62 थी", 1)
	if edited == text {
		t.Fatal("the edit changed nothing")
	}
	d2 := buildOne(t, chapterProject(edited, 600))
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d2}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	a = p.Actions[0]
	var changed []planner.DesiredChunk
	old := map[string]bool{}
	for _, ch := range d.Details().Chunks {
		old[ch.Fingerprint] = true
	}
	for _, ch := range d2.Details().Chunks {
		if !old[ch.Fingerprint] {
			changed = append(changed, ch)
		}
	}
	if len(changed) == 0 || len(changed) > 2 {
		t.Fatalf("a one-sentence edit changed %d chunks, want 1 or 2", len(changed))
	}
	var chars int64
	for _, ch := range changed {
		chars += ch.Characters
	}
	want = fmt.Sprintf("%d of %d chunks", len(changed), len(d2.Details().Chunks))
	if a.Type != planner.Replace || a.Cost.Characters != chars || a.Reasons[len(a.Reasons)-1] != want || a.Reasons[0] != "text" {
		t.Errorf("edit: %s %v cost %d; want replace (text; %s) costing %d", a.Type, a.Reasons, a.Cost.Characters, want, chars)
	}

	// The changed chunks in the cache, beside the recorded ones: nothing
	// is billed.
	cached := func(fps []string) (map[string]string, error) {
		out := map[string]string{}
		for _, ch := range append(changed, d.Details().Chunks...) {
			out[ch.Fingerprint] = "local"
		}
		return out, nil
	}
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d2}, State: st, Options: planner.Options{NoRefresh: true}, Cached: cached})
	if err != nil {
		t.Fatal(err)
	}
	if a = p.Actions[0]; a.Cost.Characters != 0 || a.Chunks.Synthesize != 0 {
		t.Errorf("changed chunks cached: cost %d, %d to synthesize; want 0", a.Cost.Characters, a.Chunks.Synthesize)
	}
	// With a cache, a chunk the state records and the cache lost is
	// billed: the apply would synthesize it again.
	lost := func(fps []string) (map[string]string, error) { return map[string]string{}, nil }
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d2}, State: st, Options: planner.Options{NoRefresh: true}, Cached: lost})
	if err != nil {
		t.Fatal(err)
	}
	if a = p.Actions[0]; a.Cost.Characters != d2.Characters || a.Chunks.Synthesize != len(d2.Details().Chunks) {
		t.Errorf("recorded chunks lost from the cache: cost %d, %d to synthesize; want every chunk (%d)", a.Cost.Characters, a.Chunks.Synthesize, d2.Characters)
	}
	// -replace synthesizes every chunk again.
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d2}, State: st, Options: planner.Options{NoRefresh: true, Replace: []string{d2.Address}}, Cached: cached})
	if err != nil {
		t.Fatal(err)
	}
	if a = p.Actions[0]; !a.Chunks.Fresh || a.Cost.Characters != d2.Characters {
		t.Errorf("-replace: %+v cost %d; want every chunk again (%d)", a.Chunks, a.Cost.Characters, d2.Characters)
	}
}

// TestLexiconInFingerprint: the lexicon is applied before the request is
// formed: the sent text, its billed characters and the fingerprint are
// the spoken form's, and a chunk's fingerprint changes only where an
// entry applies.
func TestLexiconInFingerprint(t *testing.T) {
	text := chapterText(120) + "अंत में DTH सेवा।"
	m := chapterProject(text, 600)
	plain := buildOne(t, m)
	lex, err := narration.ParseLexicon("lexicon.csv", []byte("term,spoken\nDTH,डी टी एच\n"))
	if err != nil {
		t.Fatal(err)
	}
	m.Syntheses[0].Edit().Lexicon = lex
	with := buildOne(t, m)
	if with.Fingerprint == plain.Fingerprint || with.Characters != plain.Characters+5 {
		t.Errorf("with the lexicon: fingerprint same %v, %d characters (without %d); want a new fingerprint and 5 more", with.Fingerprint == plain.Fingerprint, with.Characters, plain.Characters)
	}
	if !strings.Contains(with.Wire.Synthesis.Text, "डी टी एच") || strings.Contains(with.Wire.Synthesis.Text, "DTH") {
		t.Errorf("the request's text does not hold the spoken form")
	}
	differ := 0
	for i := range with.Details().Chunks {
		if i < len(plain.Details().Chunks) && with.Details().Chunks[i].Fingerprint != plain.Details().Chunks[i].Fingerprint {
			differ++
		}
	}
	if len(with.Details().Chunks) != len(plain.Details().Chunks) || differ != 1 {
		t.Errorf("%d chunks (without: %d), %d differ; want the same count and 1", len(with.Details().Chunks), len(plain.Details().Chunks), differ)
	}
}
