package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/junit"
)

// The listening check end to end (issue 27, "Done when"): against the
// emulator with speech faults at a fixed seed, on 200 prompts and a
// 30-chunk chapter, with recognition noise on.

// listenFaults are the emulator's speech faults and recognition noise of
// these tests.
func listenFaults() emulator.Options {
	return emulator.Options{Seed: 28, NoEspeak: true, TruncateRate: 0.04, ReplaceRate: 0.04,
		SilenceRate: 0.02, DropHalfRate: 0.04, NoiseRate: 0.02}
}

// Words of the prompts and the chapter: no number words, in either
// language (any number not heard as sent fails a check whatever its
// limits, and the emulator's noise substitutes words blindly, so a clean
// take with a misheard number word would rightly fail).
var (
	hindiWords = strings.Fields("नदी किनारे गाँव घर मिट्टी गली आँगन पौधा मंदिर घंटी सुबह शाम बच्चे खेत " +
		"बादल बारिश पेड़ पत्ते हवा धूप किसान बाज़ार रास्ता पुल नाव मछली पानी आकाश तारे चाँद सपना कहानी " +
		"दादी नानी खिड़की दरवाज़ा किताब कलम स्कूल शिक्षक मेला झूला मिठाई त्योहार दीपक रोशनी")
	englishWords = strings.Fields("river village house garden window morning evening children field cloud " +
		"rain tree leaves wind sunlight farmer market road bridge boat water sky stars moon dream story " +
		"grandmother door book pencil school teacher festival lamp light kitchen bread honey mountain valley")
)

// sentence is n words of words, ended by a full stop (a danda for Hindi).
func sentence(r *rand.Rand, words []string, n int, end string) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ") + end
}

// listenProject writes a project of 200 prompts (100 Hindi, 100 English,
// 4 to 30 words each) and a Hindi chapter of 30 chunks, all with listen:
// and regenerate.
func listenProject(t *testing.T, e *emu, regenerate int) *project {
	t.Helper()
	p := newProject(t, "", e)
	r := rand.New(rand.NewPCG(27, 27))
	var csv strings.Builder
	csv.WriteString("key,hi,en\n")
	for i := range 100 {
		fmt.Fprintf(&csv, "p%03d,%s,%s\n", i, sentence(r, hindiWords, 4+r.IntN(27), "।"), sentence(r, englishWords, 4+r.IntN(27), "."))
	}
	p.writeFile("prompts.csv", csv.String())
	var chapter strings.Builder
	for range 462 {
		chapter.WriteString(sentence(r, hindiWords, 12+r.IntN(8), "। "))
	}
	p.writeFile("chapter.txt", chapter.String())
	p.writeFile("voxform.yaml", fmt.Sprintf(`version: 1
service:
  parallelism: 8
  max_text_chars: 2000
defaults:
  synthesis:
    listen: { regenerate: %d }
voices:
  hindi:   { model: tts-v2.5, voice: Nalini, language: hi-IN }
  english: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  hi:
    for_each: prompts.csv
    voice: hindi
    text: "${each.value.hi}"
    output: "build/hi/${each.key}.wav"
  en:
    for_each: prompts.csv
    voice: english
    text: "${each.value.en}"
    output: "build/en/${each.key}.wav"
  chapter:
    voice: hindi
    text_file: chapter.txt
    audio_config: { container: mp3, sample_rate: 24000 }
    output: build/chapter.mp3
`, regenerate))
	return p
}

// listenState is what the state records of checks.
type listenState struct {
	Resources map[string]struct {
		BilledCharacters   int64   `json:"billed_characters"`
		BilledAudioSeconds float64 `json:"billed_audio_seconds"`
		Outputs            []struct {
			SHA256 string       `json:"sha256"`
			Listen *listenEntry `json:"listen"`
		} `json:"outputs"`
		Chunks []struct {
			SHA256 string       `json:"sha256"`
			Start  float64      `json:"start_seconds"`
			End    float64      `json:"end_seconds"`
			Listen *listenEntry `json:"listen"`
		} `json:"chunks"`
	} `json:"resources"`
}

type listenEntry struct {
	Failures []string `json:"failures"`
	Heard    string   `json:"heard"`
	Pass     bool     `json:"pass"`
	Takes    int      `json:"takes"`
	API      string   `json:"api"`
}

// checked is every item (an output sent whole, or a chunk) the state
// records a check of, by the SHA-256 of its audio, with its verdict.
type checked struct {
	sha   string
	item  string
	entry *listenEntry
}

func (p *project) checks() []checked {
	p.t.Helper()
	var st listenState
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		p.t.Fatal(err)
	}
	var out []checked
	for addr, r := range st.Resources {
		if len(r.Chunks) == 0 {
			out = append(out, checked{r.Outputs[0].SHA256, addr, r.Outputs[0].Listen})
		}
		for i, c := range r.Chunks {
			out = append(out, checked{c.SHA256, fmt.Sprintf("%s chunk %d", addr, i+1), c.Listen})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].item < out[j].item })
	return out
}

// faulted is the SHA-256 of every audio the emulator faulted.
func (e *emu) faulted(t *testing.T) map[string]string {
	t.Helper()
	var l struct {
		Faults []struct {
			Kind        string `json:"kind"`
			AudioSHA256 string `json:"audio_sha256"`
		} `json:"faults"`
		Unlisted int64 `json:"unlisted"`
	}
	if err := json.Unmarshal(e.SpeechFaultsJSON(), &l); err != nil || l.Unlisted != 0 {
		t.Fatalf("speech faults: %v (%d unlisted)", err, l.Unlisted)
	}
	out := map[string]string{}
	for _, f := range l.Faults {
		out[f.AudioSHA256] = f.Kind
	}
	return out
}

// TestListenFlagsExactlyTheFaults: apply with listen: flags exactly the
// outputs and chunks whose audio the emulator corrupted (none missed, no
// clean one flagged at the default limits, recognition noise on) and
// exits 1; verify -listen -junit writes a report valid against the JUnit
// schema with exactly those failures; a second apply calls nothing; a
// fresh clone that pulls from the remote cache, then applies and
// verifies, calls nothing and leaves the state as committed.
func TestListenFlagsExactlyTheFaults(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, listenFaults())
	p := listenProject(t, e, 0)
	remote := t.TempDir()
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	r := p.apply()
	if r.code != 1 {
		t.Fatalf("apply with faulted takes: exit %d, want 1\n%s", r.code, r)
	}
	faults := e.faulted(t)
	items := p.checks()
	if len(items) != 200+30 {
		t.Fatalf("%d items checked, want 230\n%s", len(items), r)
	}
	var flagged, missed, wrong []string
	for _, c := range items {
		if c.entry == nil {
			t.Fatalf("%s: no check recorded", c.item)
		}
		_, bad := faults[c.sha]
		switch {
		case !c.entry.Pass && bad:
			flagged = append(flagged, c.item)
		case c.entry.Pass && bad:
			missed = append(missed, c.item+" ("+faults[c.sha]+")")
		case !c.entry.Pass:
			wrong = append(wrong, fmt.Sprintf("%s (%s; heard %q)", c.item, strings.Join(c.entry.Failures, "; "), c.entry.Heard))
		}
	}
	if len(missed) > 0 || len(wrong) > 0 || len(flagged) != len(faults) {
		t.Fatalf("%d faults, %d flagged; missed %v; clean ones flagged %v", len(faults), len(flagged), missed, wrong)
	}
	if len(faults) < 10 {
		t.Fatalf("only %d faults at these rates: the test proves little", len(faults))
	}
	for _, name := range flagged {
		if !strings.Contains(r.stdout+r.stderr, strings.SplitN(name, " ", 2)[0]) {
			t.Errorf("apply's output does not name %s", name)
		}
	}

	s0 := e.stats(t)
	report := filepath.Join(t.TempDir(), "junit.xml")
	v := p.run("verify", "-listen", "-junit", report)
	if v.code != 1 {
		t.Fatalf("verify -listen: exit %d, want 1\n%s", v.code, v)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := junit.Check(bytes.NewReader(b)); err != nil {
		t.Fatalf("the JUnit report is not valid: %v", err)
	}
	if n := strings.Count(string(b), `type="listen"`); n != len(flagged) {
		t.Errorf("the JUnit report has %d listen failures, want %d", n, len(flagged))
	}

	if r := p.apply(); r.code != 1 {
		t.Fatalf("second apply: exit %d, want 1 (the failures stay red)\n%s", r.code, r)
	}
	if s1 := e.stats(t); s1.calls() != s0.calls() {
		t.Fatalf("verify and a second apply called the service %d times", s1.calls()-s0.calls())
	}

	outputs := recordedOutputs(t, p)
	committed := p.readFile("voxform.state.json")
	c := cloneWithoutOutputs(t, p, e, outputs)
	c.env = append(c.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	c.mustRun("pull")
	c.run("apply", "-auto-approve")
	c.run("verify", "-listen")
	if s2 := e.stats(t); s2.calls() != s0.calls() {
		t.Fatalf("a fresh clone's pull, apply and verify called the service %d times", s2.calls()-s0.calls())
	}
	if got := c.readFile("voxform.state.json"); got != committed {
		t.Fatal("the fresh clone's pull and apply changed the state")
	}
}

// TestListenRegenerates: with regenerate: 2 the faulted takes are made
// again, and apply bills exactly the extra takes the emulator counts;
// every output recorded passing holds a clean take.
func TestListenRegenerates(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, listenFaults())
	p := listenProject(t, e, 2)
	r := p.apply("-json")
	faults := e.faulted(t)
	st := e.stats(t)
	items := p.checks()
	extra, failing := 0, 0
	for _, c := range items {
		if c.entry == nil {
			t.Fatalf("%s: no check recorded", c.item)
		}
		extra += max(c.entry.Takes, 1) - 1
		_, bad := faults[c.sha]
		if c.entry.Pass == bad {
			t.Errorf("%s: recorded pass=%v, its take faulted=%v", c.item, c.entry.Pass, bad)
		}
		if !c.entry.Pass {
			failing++
		}
	}
	if got := int(st.Syntheses) - len(items); got != extra {
		t.Errorf("the emulator made %d syntheses beyond one an item; the state records %d extra takes", got, extra)
	}
	if extra == 0 {
		t.Fatal("no take was regenerated: the test proves little")
	}
	if want := map[bool]int{true: 1, false: 0}[failing > 0]; r.code != want {
		t.Errorf("apply: exit %d with %d items failing every take\n%s", r.code, failing, r)
	}
	var billedChars int64
	var billedSecs float64
	var st2 listenState
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st2); err != nil {
		t.Fatal(err)
	}
	for _, res := range st2.Resources {
		billedChars += res.BilledCharacters
		billedSecs += res.BilledAudioSeconds
	}
	if billedChars != st.BilledCharacters {
		t.Errorf("the state records %d billed characters, the emulator billed %d", billedChars, st.BilledCharacters)
	}
	if d := billedSecs - st.BilledAudioSeconds; d > 0.5 || d < -0.5 {
		t.Errorf("the state records %.2f billed audio seconds, the emulator billed %.2f", billedSecs, st.BilledAudioSeconds)
	}
}
