package executor_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// cuesManifest is chapterManifest with a lexicon and cue files, and a
// short synthesis with cue files of its own.
const cuesManifest = chapterManifest + `    lexicon: words.csv
    cues: { json: out/chapter.cues.json, vtt: out/chapter.vtt }
  short:
    voice: v3
    text: "नमस्ते, आज की कहानी छोटी है।"
    output: out/short.wav
    cues: { vtt: out/short.vtt }
`

// jsonCues is the cue file narration.JSONCues writes.
type jsonCues struct {
	Cues []struct {
		Index int     `json:"index"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	} `json:"cues"`
}

// TestChunkedCues: the cue files of a chunked synthesis give each chunk's
// start as the running sum of its chunks' durations, and its text as
// written (the lexicon's term, not its spoken form); the WebVTT file is
// well formed; a synthesis that is not chunked has one cue as long as its
// audio; the cue files are recorded outputs with their SHA-256, so a cue
// file edited by hand is planned for repair without a chunk billed.
func TestChunkedCues(t *testing.T) {
	text := hindiChapter(40)
	h := newHarness(t, emulator.Options{}, map[string]string{
		"main.yaml": cuesManifest, "chapter.txt": text,
		"words.csv": "term,spoken\nचहल-पहल,हलचल और रौनक\n",
	})
	if s := h.apply(); s.Done != 2 || s.Failed != 0 {
		defer func() { b, _ := os.ReadFile(filepath.Join(h.dir, "out/chapter.vtt")); t.Logf("%.600s", b) }()
		t.Fatalf("apply: %+v", s)
	}
	st := h.state()
	rec := st.Resources["synthesis.chapter"]
	if rec == nil || len(rec.Details().Chunks) < 5 {
		t.Fatalf("state: %+v; want a chunked synthesis", rec)
	}
	checkRecorded(t, h.dir, rec, "out/chapter.wav", "out/chapter.cues.json", "out/chapter.vtt")

	var starts []time.Duration // running sum of the chunks' durations
	var at time.Duration
	for _, c := range rec.Details().Chunks {
		b, err := os.ReadFile(blobPath(h.dir, c.SHA256))
		if err != nil {
			t.Fatal(err)
		}
		f, data, err := audio.ParseWAV(b)
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, at)
		at += f.Duration(int64(len(data)))
	}
	var cues jsonCues
	b, err := os.ReadFile(filepath.Join(h.dir, "out/chapter.cues.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cues); err != nil {
		t.Fatalf("cue JSON: %v\n%s", err, b)
	}
	if len(cues.Cues) != len(rec.Details().Chunks) {
		t.Fatalf("%d cues for %d chunks", len(cues.Cues), len(rec.Details().Chunks))
	}
	var said strings.Builder
	for i, c := range cues.Cues {
		if c.Index != i+1 || absDur(seconds(c.Start)-starts[i]) > time.Millisecond {
			t.Errorf("cue %d: index %d, start %.3f s; the chunks before it last %v", i+1, c.Index, c.Start, starts[i])
		}
		said.WriteString(c.Text)
	}
	if last := cues.Cues[len(cues.Cues)-1]; absDur(seconds(last.End)-at) > time.Millisecond {
		t.Errorf("the last cue ends at %.3f s; the chunks last %v", last.End, at)
	}
	if strings.Join(strings.Fields(said.String()), "") != strings.Join(strings.Fields(text), "") {
		t.Errorf("the cues' texts together are not the text as written")
	}
	if strings.Contains(said.String(), "रौनक") {
		t.Errorf("a cue holds the lexicon's spoken form; cues give the text as written")
	}
	vtt := checkVTT(t, filepath.Join(h.dir, "out/chapter.vtt"))
	if len(vtt) != len(rec.Details().Chunks) {
		t.Errorf("WebVTT: %d cues for %d chunks", len(vtt), len(rec.Details().Chunks))
	}
	for i, c := range vtt {
		if absDur(c-starts[i]) > time.Millisecond {
			t.Errorf("WebVTT cue %d starts at %v, the chunks before it last %v", i+1, c, starts[i])
		}
	}

	short := st.Resources["synthesis.short"]
	checkRecorded(t, h.dir, short, "out/short.wav", "out/short.vtt")
	info, err := audio.Probe(filepath.Join(h.dir, "out/short.wav"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(filepath.Join(h.dir, "out/short.vtt"))
	if want := "WEBVTT\n\n1\n00:00:00.000 --> " + vttStamp(info.Duration) + "\nनमस्ते, आज की कहानी छोटी है।\n"; string(body) != want {
		t.Errorf("short.vtt:\n%s\nwant:\n%s", body, want)
	}

	// A cue file edited by hand is drift, which voxform does not
	// overwrite; once it is deleted, it is repaired from the chunks kept.
	vttPath := filepath.Join(h.dir, "out/chapter.vtt")
	if err := os.WriteFile(vttPath, []byte("WEBVTT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := chapterAction(h); a == nil || !strings.Contains(a.Details().Refused, "out/chapter.vtt changed") {
		t.Fatalf("plan after editing the cue file: %+v; want the edit seen and the file left alone", a)
	}
	if err := os.Remove(vttPath); err != nil {
		t.Fatal(err)
	}
	if repair := chapterAction(h); repair == nil || repair.Type != planner.Repair || repair.Chunks == nil || repair.Chunks.Synthesize != 0 || repair.Cost.Characters != 0 {
		t.Fatalf("plan after deleting the cue file: %+v; want a repair billing no chunk", repair)
	}
	before := h.counter("billed_characters")
	if s := h.apply(); s.Done != 1 || h.counter("billed_characters") != before {
		t.Fatalf("repair: %+v, %v characters billed", s, h.counter("billed_characters")-before)
	}
	if got := checkVTT(t, vttPath); len(got) != len(rec.Details().Chunks) {
		t.Errorf("repaired WebVTT has %d cues, want %d", len(got), len(rec.Details().Chunks))
	}
}

// chapterAction is the planned action of synthesis.chapter; nil: none.
func chapterAction(h *harness) *planner.Action {
	p, _, done := h.plan()
	defer done()
	for _, a := range p.Actions {
		if a.Address == "synthesis.chapter" {
			return a
		}
	}
	return nil
}

// checkRecorded: rec's outputs are paths, in order, each recorded with
// the SHA-256 of the file there, the cue files with their format.
func checkRecorded(t *testing.T, dir string, rec *state.Resource, paths ...string) {
	t.Helper()
	if rec == nil || len(rec.Outputs) != len(paths) {
		t.Fatalf("recorded outputs %+v, want %v", rec, paths)
	}
	for i, o := range rec.Outputs {
		b, err := os.ReadFile(filepath.Join(dir, o.Path))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		format := map[bool]string{true: "", false: planner.CuesJSON}[i == 0]
		if strings.HasSuffix(o.Path, ".vtt") {
			format = planner.CuesVTT
		}
		if o.Path != paths[i] || o.SHA256 != hex.EncodeToString(sum[:]) || o.Format != format {
			t.Errorf("output %d recorded as %+v; want %s (%q) with the file's SHA-256", i, o, paths[i], format)
		}
	}
}

var vttTiming = regexp.MustCompile(`^(\d{2,}):(\d{2}):(\d{2})\.(\d{3}) --> (\d{2,}):(\d{2}):(\d{2})\.(\d{3})$`)

// checkVTT checks the structure of a WebVTT file (W3C WebVTT: the
// signature, then cues of an identifier, a timing line and a payload
// without blank lines or "-->", each ending after it starts and starting
// where the one before ended or later) and returns the cues' starts.
func checkVTT(t *testing.T, path string) []time.Duration {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n\n")
	if blocks[0] != "WEBVTT" {
		t.Fatalf("%s does not start with the WEBVTT line alone: %q", path, blocks[0])
	}
	var starts []time.Duration
	var prevEnd time.Duration
	for i, blk := range blocks[1:] {
		lines := strings.Split(blk, "\n")
		if len(lines) < 3 || lines[0] != strconv.Itoa(i+1) {
			t.Errorf("%s: cue %d is not an identifier, a timing and a payload: %q", path, i+1, blk)
			continue
		}
		m := vttTiming.FindStringSubmatch(lines[1])
		if m == nil {
			t.Errorf("%s: cue %d timing %q", path, i+1, lines[1])
			continue
		}
		start, end := stamp(m[1:5]), stamp(m[5:9])
		if end <= start || start < prevEnd {
			t.Errorf("%s: cue %d from %v to %v, after one ending at %v", path, i+1, start, end, prevEnd)
		}
		for _, l := range lines[2:] {
			if strings.TrimSpace(l) == "" || strings.Contains(l, "-->") {
				t.Errorf("%s: cue %d payload line %q", path, i+1, l)
			}
		}
		starts = append(starts, start)
		prevEnd = end
	}
	return starts
}

func stamp(f []string) time.Duration {
	n := make([]int, 4)
	for i, s := range f {
		n[i], _ = strconv.Atoi(s)
	}
	return time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second + time.Duration(n[3])*time.Millisecond
}

func vttStamp(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	return strings.Join([]string{pad(ms/3_600_000, 2), pad(ms/60_000%60, 2), pad(ms/1000%60, 2)}, ":") + "." + pad(ms%1000, 3)
}

func pad(n int64, w int) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", max(w-len(s), 0)) + s
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
