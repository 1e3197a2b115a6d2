package e2e_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// chunkedChange is the part of a -json planned change that says what a
// chunked synthesis does with its chunks.
type chunkedChange struct {
	Type    string   `json:"type"`
	Address string   `json:"address"`
	Kind    string   `json:"kind"`
	Action  string   `json:"action"`
	Reasons []string `json:"reasons"`
	Chunks  *struct {
		Total      int `json:"total"`
		Synthesize int `json:"synthesize"`
	} `json:"chunks"`
	Cost struct {
		Characters int64 `json:"characters"`
	} `json:"cost"`
	// PlanCost is what the whole plan bills (chunkedPlan).
	PlanCost int64 `json:"-"`
}

// chunkedPlan runs 'voxform plan -json' and returns its one change of a
// chunked synthesis, with the plan's whole cost in PlanCost. The other
// changes may only be of syntheses sent whole and of packages (the
// audiobook example's second chapter and its book).
func chunkedPlan(t *testing.T, p *project) chunkedChange {
	t.Helper()
	r := p.mustRun("plan", "-json")
	var out []chunkedChange
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var c chunkedChange
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("plan -json: %q: %v", line, err)
		}
		switch {
		case c.Type == "planned_change" && c.Chunks != nil:
			out = append(out, c)
		case c.Type == "planned_change" && c.Kind != "package" && c.Kind != "synthesis":
			t.Fatalf("plan: a change of %s %s\n%s", c.Kind, c.Address, r)
		case c.Type == "change_summary":
			total = c.Cost.Characters
		}
	}
	if len(out) != 1 {
		t.Fatalf("plan: %+v; want one change of a chunked synthesis\n%s", out, r)
	}
	out[0].PlanCost = total
	return out[0]
}

// TestAudiobookExample applies examples/manifests/audiobook, a Hindi
// chapter from a text file with tts-v3.0 tags and a lexicon, against the
// emulator: it validates without a warning; the plan creates it in chunks
// and costs what the service bills; the joined MP3 is valid per ffprobe
// and lasts as long as its chunks together, within one frame; a
// one-sentence edit re-synthesizes at most two chunks; then nothing is
// left to do and a second apply calls nothing.
func TestAudiobookExample(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 7})
	p := newProject(t, "audiobook", e)
	if profile != "live" {
		withoutDelivery(t, p) // mastering is local: the live pass delivers and packages
	}
	if r := p.mustRun("validate"); strings.Contains(r.stdout+r.stderr, "warning") {
		t.Fatalf("the example validates with warnings:\n%s", r)
	}
	c := chunkedPlan(t, p)
	if c.Action != "create" || c.Chunks.Total < 4 || c.Chunks.Synthesize != c.Chunks.Total {
		t.Fatalf("first plan: %+v; want a create of every chunk", c)
	}
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if got := e.stats(t).BilledCharacters; got != c.PlanCost {
		t.Errorf("service billed %d characters, the plan said %d", got, c.PlanCost)
	}

	// The output lasts as long as its chunks, each kept in the cache.
	var st struct {
		Resources map[string]struct {
			Chunks []struct {
				SHA256 string `json:"sha256"`
			} `json:"chunks"`
		} `json:"resources"`
	}
	b, err := os.ReadFile(p.path("voxform.state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	chunks := st.Resources["synthesis.chapter1"].Chunks
	if len(chunks) != c.Chunks.Total {
		t.Fatalf("state records %d chunks, the plan %d", len(chunks), c.Chunks.Total)
	}
	cacheDir := ""
	for _, kv := range p.env {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			cacheDir = filepath.Join(v, "voxform")
		}
	}
	var sum float64
	for _, ch := range chunks {
		sum += seconds(t, runProbe(t, filepath.Join(cacheDir, "v1", "blobs", ch.SHA256[:2], ch.SHA256), "-f", "mp3").Format.Duration)
	}
	out := runProbe(t, p.path("build/audiobook/chapter1.mp3"))
	const frame = 1152.0 / 24000 // one MPEG-2 layer III frame at 24 kHz
	if got := seconds(t, out.Format.Duration); math.Abs(got-sum) > frame {
		t.Errorf("chapter lasts %.3f s, its %d chunks %.3f s: more than a frame apart", got, len(chunks), sum)
	}
	p.assertNoChanges()

	// One sentence edited: at most the two chunks around it.
	editFile(t, p.path("chapter1.txt"), "उस रात मोहन देर तक जागता रहा।", "उस रात मोहन बहुत देर तक जागता रहा।")
	c = chunkedPlan(t, p)
	if c.Action != "replace" || c.Chunks.Synthesize < 1 || c.Chunks.Synthesize > 2 {
		t.Fatalf("plan after the edit: %+v; want a replace of 1 or 2 chunks", c)
	}
	before := e.stats(t)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	after := e.stats(t)
	if got := after.BilledCharacters - before.BilledCharacters; got != c.PlanCost {
		t.Errorf("the edit billed %d characters, the plan said %d", got, c.PlanCost)
	}
	runProbe(t, p.path("build/audiobook/chapter1.mp3"))
	p.assertNoChanges()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("second apply: %s", r)
	}
	if again := e.stats(t); again.calls() != after.calls() {
		t.Errorf("an apply with nothing changed made %d API calls", again.calls()-after.calls())
	}
}

func seconds(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	return f
}

// withoutDelivery drops the audiobook example's deliveries and book (its
// deliver: lines and its packages: block, the last): for the tests that
// need only its chapters, since mastering and packaging a chapter costs
// as much as synthesizing it in the emulator.
func withoutDelivery(t *testing.T, p *project) {
	t.Helper()
	y := p.readFile("main.yaml")
	if i := strings.Index(y, "\npackages:"); i >= 0 {
		y = y[:i+1]
	}
	var kept []string
	for _, line := range strings.Split(y, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "deliver:") {
			kept = append(kept, line)
		}
	}
	y = strings.Join(kept, "\n")
	if strings.Contains(y, "deliver:") || strings.Contains(y, "packages:") {
		t.Fatalf("main.yaml still delivers:\n%s", y)
	}
	p.writeFile("main.yaml", y)
}
