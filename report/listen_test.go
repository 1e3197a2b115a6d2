package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

// listenProject is a state a listening apply would record: a chapter
// sent in chunks (recorded with their times, loudness, edges and checks)
// and a prompt sent whole whose transcript is hostile, with the manifest
// they were applied from. The chapter's text is split by the planner
// (max_text_chars 200), so the chunk texts and fingerprints are its own.
type listenProject struct {
	dir      string
	st       *state.File
	m        *manifest.Manifest
	chunks   []planner.DesiredChunk
	chunkLen float64 // seconds each chunk lasts in the joined output
	// bad is the chunk heard with a replaced run; loud the chunk 5 LU
	// louder than the others (its seams fail).
	bad, loud int
	// badFrom is the first replaced word of the bad chunk, of badWords.
	badFrom, badWords int
	hostile           string
}

const prompt = "Welcome to the city library, please hold the line."

func chapterText() string {
	names := []string{"amber", "birch", "cedar", "delta", "ember", "fable", "garnet", "harbor", "indigo", "juniper", "kestrel", "lantern"}
	var b strings.Builder
	for i, n := range names {
		fmt.Fprintf(&b, "The %s river runs past the old mill and the quiet farm near %s hill. ", n, names[(i+5)%len(names)])
	}
	return b.String()
}

// newListenProject writes the chapter's audio (chunkLen seconds a chunk)
// and the prompt's, and records them with their checks. The chapter's
// checks were recorded under other limits ("old"): the page judges them
// again. The bad chunk was recorded passing; judged again it fails.
func newListenProject(t *testing.T) *listenProject {
	t.Helper()
	p := &listenProject{dir: t.TempDir(), chunkLen: 4, bad: 1, loud: 2, badFrom: 4}
	spec := &manifest.Listen{Thresholds: listen.DefaultThresholds(), Seams: manifest.DefaultSeams(), Hash: "limits-now"}
	v := &manifest.Voice{Name: "v", Address: "voice.v", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}
	mk := func(name, text, out string) *manifest.Synthesis {
		return &manifest.Synthesis{Name: name, Address: "synthesis." + name, Voice: "v", Model: v.Model, VoiceName: v.Voice,
			Language: v.Language, Text: text, Output: out, Transport: "rest"}
	}
	p.m = &manifest.Manifest{Dir: p.dir, Version: 1, Voices: []*manifest.Voice{v},
		Syntheses: []*manifest.Synthesis{mk("chapter", chapterText(), "build/chapter.wav"), mk("prompt", prompt, "build/prompt.wav")},
		Service:   manifest.Service{Profile: "documented", MaxTextChars: 200}}
	ds, err := planner.Build(p.m, func(string) (state.FileHash, error) { return state.FileHash{}, fmt.Errorf("no input files") })
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.m.Syntheses { // declared after Build: this planner refuses listen: still
		s.Edit().Listen = spec
	}
	chapter, whole := ds[0], ds[1]
	p.chunks = chapter.Details().Chunks
	if len(p.chunks) < 4 {
		t.Fatalf("the chapter is %d chunks, want at least 4", len(p.chunks))
	}
	p.st = state.New()
	n := len(p.chunks)
	r := p.record(t, chapter, "build/chapter.wav", float64(n)*p.chunkLen)
	for i, c := range p.chunks {
		heard := strings.ToLower(strings.NewReplacer(".", "", ",", "").Replace(c.Text))
		if i == p.bad {
			w := strings.Fields(heard)
			p.badWords = len(w)
			w[p.badFrom], w[p.badFrom+1], w[p.badFrom+2] = "zebra", "quantum", "walrus"
			heard = strings.Join(w, " ")
		}
		lufs := -23.0
		if i == p.loud {
			lufs = -18
		}
		r.Edit().Chunks = append(r.Details().Chunks, state.ChunkRecord{Fingerprint: c.Fingerprint, Characters: c.Characters,
			Start: float64(i) * p.chunkLen, End: float64(i+1) * p.chunkLen, Loudness: &state.Loudness{Integrated: &lufs},
			Lead: 0.1, Tail: 0.2,
			Listen: &state.Listen{Fingerprint: strings.Repeat("9", 64), API: "rest", LanguageCode: "en-IN", Seconds: p.chunkLen,
				Heard: heard, Pass: true, Judged: "limits-then"}})
	}
	p.hostile = "<script>window.pwned=1</script></script><img src=x onerror=\"window.pwned=2\">\u202egnp.exe " +
		strings.Repeat("<script>alert(document.cookie)</script>\u202e ", 100<<10/45)
	w := p.record(t, whole, "build/prompt.wav", 3)
	w.Outputs[0].Listen = &state.Listen{Fingerprint: strings.Repeat("8", 64), API: "rest", LanguageCode: "en-IN", Seconds: 3,
		Heard: p.hostile, Pass: false, Judged: "limits-now", CER: 1, WER: 1, LongestRun: 9, MissingTail: 9,
		Failures: []string{"longest_run: 9 words over 2"}, Span: &state.ListenSpan{From: 0, To: 9, Sent: "welcome", Heard: "script", Start: 0}}
	return p
}

// record writes seconds of audio for d's output and records it.
func (p *listenProject) record(t *testing.T, d *planner.Desired, path string, seconds float64) *state.Resource {
	t.Helper()
	samples := make([]float64, int(seconds*8000))
	for i := range samples {
		samples[i] = 0.2 * math.Sin(float64(i)/7)
	}
	b := wav(t, samples)
	if err := os.MkdirAll(filepath.Join(p.dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, path), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := (&state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: d.Fingerprint,
		Outputs: []state.Output{{Path: path, SHA256: sum(b), Size: int64(len(b))}}, BilledCharacters: d.Characters}).WithDetails(state.Details{DurationSeconds: seconds})
	req, err := d.RequestJSON()
	if err != nil {
		t.Fatal(err)
	}
	r.SetRequestJSON(req)
	p.st.Resources[d.Address] = r
	return r
}

// build writes the page of p and returns its rows by address with the
// limits table.
func (p *listenProject) build(t *testing.T, m *manifest.Manifest) (map[string]map[string]any, []any) {
	t.Helper()
	out := filepath.Join(p.dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: p.dir, Out: out, State: p.st, Manifest: m}); err != nil {
		t.Fatal(err)
	}
	items := map[string]map[string]any{}
	for _, it := range pageData(t, out) {
		items[it["address"].(string)] = it
	}
	b, _ := os.ReadFile(filepath.Join(out, report.PageName))
	var d struct {
		Limits []any `json:"limits"`
	}
	i := strings.Index(string(b), `<script id="data" type="application/json">`)
	j := strings.Index(string(b[i:]), "</script>")
	if err := json.Unmarshal(b[i+len(`<script id="data" type="application/json">`):i+j], &d); err != nil {
		t.Fatal(err)
	}
	return items, d.Limits
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReportChunkCues: a chunked output's row has its chunks as cues with
// the planner's texts (split again from the recorded request, proven by
// the recorded chunk fingerprints) and recorded times, no wall of text;
// each chunk's check is judged again at the manifest's limits (the bad
// chunk, recorded passing under other limits, fails with its aligned
// diff and a play-from a second before its diverging run; the others
// pass without a diff); the seams around the loud chunk fail; the prompt
// sent whole has its check beside it with the diff of its hostile
// transcript, bounded and inert.
func TestReportChunkCues(t *testing.T) {
	p := newListenProject(t)
	items, limits := p.build(t, p.m)
	ch := items["synthesis.chapter"]
	if ch["text"] != nil {
		t.Errorf("the chapter row still has its text whole (%d bytes): its cues hold it", len(asJSON(ch["text"])))
	}
	if ch["chunk_times"] != "recorded" {
		t.Errorf("chunk_times %v, want recorded", ch["chunk_times"])
	}
	cues, _ := ch["chunks"].([]any)
	if len(cues) != len(p.chunks) {
		t.Fatalf("%d cues, want %d (one per chunk)", len(cues), len(p.chunks))
	}
	if ch["listen_fails"] != 3.0 || items["synthesis.prompt"]["listen_fails"] != 1.0 {
		t.Errorf("failing checks and seams: chapter %v, prompt %v; want 3 (a chunk and two seams) and 1", ch["listen_fails"], items["synthesis.prompt"]["listen_fails"])
	}
	if len(limits) != 2 || limits[0] != nil || asJSON(limits[1]) != `{"max_cer":0.2,"max_missing_tail":1,"max_run":2,"max_wer":0.4}` {
		t.Errorf("limits table %s, want null and the manifest's limits", asJSON(limits))
	}
	for i, c := range cues {
		cue := c.(map[string]any)
		check, _ := cue["check"].(map[string]any)
		if cue["text"] != p.chunks[i].Text || cue["start"] != float64(i)*p.chunkLen || cue["end"] != float64(i+1)*p.chunkLen {
			t.Errorf("cue %d: %q at %v-%v, want the chunk's text %q at its recorded times", i, cue["text"], cue["start"], cue["end"], p.chunks[i].Text)
		}
		if check == nil || check["limits"] != 1.0 {
			t.Fatalf("cue %d: check %s, want one judged at the manifest's limits (1)", i, asJSON(check))
		}
		if pass := i != p.bad; check["pass"] != pass {
			t.Errorf("cue %d: pass %v, want %v", i, check["pass"], pass)
		}
		if i != p.bad && (check["diff"] != nil || check["failures"] != nil || check["play_from"] != nil) {
			t.Errorf("cue %d passes but carries %s", i, asJSON(check))
		}
		seamFails := i == p.loud-1 || i == p.loud
		if (cue["seam"] != nil) != seamFails {
			t.Errorf("cue %d: seam %s, want a failing seam: %v", i, asJSON(cue["seam"]), seamFails)
		}
	}
	bad := cues[p.bad].(map[string]any)["check"].(map[string]any)
	diff := asJSON(bad["diff"])
	if !strings.Contains(diff, `"op":"substitute"`) || !strings.Contains(diff, `"heard":"zebra quantum walrus"`) {
		t.Errorf("the bad chunk's diff %s, want the substituted run heard as \"zebra quantum walrus\"", diff)
	}
	start := float64(p.bad)*p.chunkLen + math.Round(p.chunkLen*float64(p.badFrom)/float64(p.badWords)*10)/10 - 1
	if got, _ := bad["play_from"].(float64); math.Abs(got-start) > 1e-9 {
		t.Errorf("play_from %v, want the chunk's start + the run's start - 1 s = %v", bad["play_from"], start)
	}
	if seam := fmt.Sprint(cues[p.loud].(map[string]any)["seam"]); !strings.Contains(seam, "step 5.00 LU > 3 LU") {
		t.Errorf("the loud chunk's seam %s, want its 5 LU step named", seam)
	}

	pr := items["synthesis.prompt"]
	check, _ := pr["check"].(map[string]any)
	if check == nil || check["pass"] != false || pr["chunks"] != nil || pr["text"] != prompt {
		t.Fatalf("the prompt: check %v, chunks %v, text %v; want a failing check beside the text", check, pr["chunks"], pr["text"])
	}
	d := asJSON(check["diff"])
	if strings.Contains(d, "\u202e") || !strings.Contains(d, `\\u202e`) {
		t.Errorf("the prompt's diff keeps a bidi override as it is, or does not show it escaped")
	}
	if check["diff_more"] == nil || len(d) > 64<<10 {
		t.Errorf("the prompt's diff is %d bytes, %v words not shown; want it bounded with the rest counted", len(d), check["diff_more"])
	}
}

// TestReportChunksOfAnOlderState: without the manifest, each check shows
// its verdict as recorded (the bad chunk recorded passing stays so, with
// a note) and the chunk texts, which the model's default request size
// does not split the recorded text into, are not guessed; chunks recorded
// before voxform kept their times are placed in proportion to their
// characters over the output's duration, marked estimated; with no
// duration either, they are not placed at all.
func TestReportChunksOfAnOlderState(t *testing.T) {
	p := newListenProject(t)
	items, _ := p.build(t, nil)
	ch := items["synthesis.chapter"]
	bad := ch["chunks"].([]any)[p.bad].(map[string]any)
	if c := bad["check"].(map[string]any); c["pass"] != true || c["limits"] != nil || c["note"] != nil {
		t.Errorf("without a manifest the bad chunk's check is %s, want its recorded pass, with no limits", asJSON(c))
	}
	if bad["text"] != nil || ch["text"] == nil || !strings.Contains(fmt.Sprint(ch["chunk_note"]), "texts are not shown") {
		t.Errorf("chunk text %v, row text %v, note %v: want no guessed chunk text, the row's text, and a note", bad["text"], ch["text"] != nil, ch["chunk_note"])
	}

	r := p.st.Resources["synthesis.chapter"]
	var total int64
	for i := range r.Details().Chunks {
		r.Details().Chunks[i].Start, r.Details().Chunks[i].End = 0, 0
		total += r.Details().Chunks[i].Characters
	}
	items, _ = p.build(t, p.m)
	ch = items["synthesis.chapter"]
	cues := ch["chunks"].([]any)
	dur := float64(len(r.Details().Chunks)) * p.chunkLen
	second := math.Round(dur*float64(r.Details().Chunks[0].Characters)/float64(total)*100) / 100
	if ch["chunk_times"] != "estimated" || cues[1].(map[string]any)["start"] != second || !strings.Contains(fmt.Sprint(ch["chunk_note"]), "estimated") {
		t.Errorf("times %v, chunk 2 at %v (want %v), note %v: want times estimated by characters", ch["chunk_times"], cues[1].(map[string]any)["start"], second, ch["chunk_note"])
	}
	if c := cues[p.bad].(map[string]any)["check"].(map[string]any); c["play_from"] == nil {
		t.Errorf("a failing chunk at an estimated time has no play-from: %s", asJSON(c))
	}

	r.Edit().DurationSeconds = 0
	if err := os.Remove(filepath.Join(p.dir, "build/chapter.wav")); err != nil {
		t.Fatal(err)
	}
	items, _ = p.build(t, p.m)
	ch = items["synthesis.chapter"]
	c := ch["chunks"].([]any)[p.bad].(map[string]any)["check"].(map[string]any)
	if ch["chunk_times"] != nil || c["play_from"] != nil || !strings.Contains(fmt.Sprint(ch["chunk_note"]), "not known") {
		t.Errorf("times %v, play_from %v, note %v: want no times, no seek, and a note", ch["chunk_times"], c["play_from"], ch["chunk_note"])
	}
}

// TestReportPassingChecksStaySmall: a passing check adds its figures
// only, so that 100,000 checked prompts add a few MB to the page, not a
// diff each.
func TestReportPassingChecksStaySmall(t *testing.T) {
	p := newListenProject(t)
	w := p.st.Resources["synthesis.prompt"]
	w.Outputs[0].Listen.Heard = strings.ToLower(prompt)
	w.Outputs[0].Listen.Judged = "limits-then"
	with, _ := p.build(t, p.m)
	w.Outputs[0].Listen = nil
	without, _ := p.build(t, p.m)
	if c, _ := with["synthesis.prompt"]["check"].(map[string]any); c["pass"] != true {
		t.Fatalf("the prompt heard as sent: %s, want a pass", asJSON(c))
	}
	if n := len(asJSON(with["synthesis.prompt"])) - len(asJSON(without["synthesis.prompt"])); n > 100 {
		t.Errorf("a passing check adds %d bytes to its row (%s), want at most 100", n, asJSON(with["synthesis.prompt"]["check"]))
	}
}

// TestReportPlannedChunks: in a saved plan, a chapter to be made shows
// its planned chunks' texts as cues without times (nothing to play yet)
// and no check; one whose check is to be made (a check action) shows the
// recorded chunks, their times and checks, with the plan's texts.
func TestReportPlannedChunks(t *testing.T) {
	p := newListenProject(t)
	ds, err := planner.Build(withoutListen(p.m), func(string) (state.FileHash, error) { return state.FileHash{}, fmt.Errorf("no input files") })
	if err != nil {
		t.Fatal(err)
	}
	chapter := ds[0]
	prior := p.st.Resources["synthesis.chapter"]
	st := state.New()
	plan := &planner.Plan{Actions: []*planner.Action{
		{Address: "synthesis.chapter", Type: planner.Check, Desired: chapter, Prior: prior},
		{Address: "synthesis.new", Type: planner.Create, Desired: chapter},
	}}
	st.Resources["synthesis.chapter"] = prior
	out := filepath.Join(p.dir, "report")
	in := report.Input{Dir: p.dir, Out: out, State: st, Manifest: p.m, Plan: &planner.SavedPlan{Plan: plan}}
	if err := report.Build(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	items := map[string]map[string]any{}
	for _, it := range pageData(t, out) {
		items[it["address"].(string)] = it
	}
	made := items["synthesis.new"]
	cues, _ := made["chunks"].([]any)
	if len(cues) != len(p.chunks) || made["chunk_times"] != nil || made["text"] != nil {
		t.Fatalf("the chapter to be made: %d cues, times %v, text whole %v; want %d cues with no times and no text whole", len(cues), made["chunk_times"], made["text"] != nil, len(p.chunks))
	}
	for i, c := range cues {
		if cue := c.(map[string]any); cue["text"] != p.chunks[i].Text || cue["check"] != nil {
			t.Errorf("planned cue %d: %s, want the planned text and no check", i, asJSON(cue))
		}
	}
	checked := items["synthesis.chapter"]
	cues, _ = checked["chunks"].([]any)
	if len(cues) != len(p.chunks) || checked["chunk_times"] != "recorded" {
		t.Fatalf("the chapter to be checked: %d cues, times %v; want the recorded chunks and times", len(cues), checked["chunk_times"])
	}
	if c := cues[p.bad].(map[string]any); c["text"] != p.chunks[p.bad].Text || c["check"].(map[string]any)["pass"] != false {
		t.Errorf("the bad chunk to be checked: %s, want its planned text and its failing check", asJSON(c))
	}
}

// withoutListen is m with its syntheses' listen: cleared (copies), for
// planner.Build, which refuses listen: for now.
func withoutListen(m *manifest.Manifest) *manifest.Manifest {
	c := *m
	c.Syntheses = nil
	for _, s := range m.Syntheses {
		s2 := *s
		s2.Edit().Listen = nil
		c.Syntheses = append(c.Syntheses, &s2)
	}
	return &c
}
