package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/pgtest"
)

// recordedManifest is a project of TTS prompts; recorded, when set, is
// the greeting's recorded: line.
func recordedManifest(recorded string) string {
	return `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  menu:
    for_each: [billing, support]
    voice: n
    text: "Press one for ${each.key}."
    output: "build/${each.key}.wav"
    audio_config: { container: wav, sample_rate: 16000 }
  greeting:
    voice: n
    text: "Welcome to the help line."
    output: build/greeting.wav
    audio_config: { container: wav, sample_rate: 16000 }
` + recorded
}

// TestRecordedReplacesTTS is issue 30's human recording, end to end
// against the emulator: a recording given to an applied TTS prompt is a
// free replace, applied with no call; the output is the recording byte
// for byte, state show says recorded and takes lists it, cached; the record survives state
// migrate to pg and back, and a fresh clone's pull restores the output
// from the remote cache with no call; removing recorded: is a replace
// that says so, free from the cache when it holds the earlier take, billed
// otherwise.
func TestRecordedReplacesTTS(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	p := newProject(t, "", e)
	remote := t.TempDir()
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	p.writeFile("voxform.yaml", recordedManifest(""))
	p.mustRun("apply", "-auto-approve")

	wav := speechLikeWAV(t, 330)
	p.writeFile("studio/greeting.wav", string(wav))
	p.writeFile("voxform.yaml", recordedManifest("    recorded: studio/greeting.wav\n"))
	const addr = "synthesis.greeting"
	changes, sum := p.plan()
	if sum.Replace != 1 || sum.changes() != 1 || sum.Cost.Characters != 0 || len(changes) != 1 || changes[0].Address != addr ||
		!slices.Contains(changes[0].Reasons, "recorded: added (from recording studio/greeting.wav)") {
		t.Fatalf("plan with a recording: %+v %+v, want one free replace of %s saying why", sum, changes, addr)
	}
	calls := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("apply of a recorded prompt made %d API calls, want none", n)
	}
	if got := mustRead(t, p.path("build/greeting.wav")); !bytes.Equal(got, wav) {
		t.Fatal("build/greeting.wav is not the recording byte for byte")
	}
	if o := stateOrigin(t, p, addr); o != "recorded" {
		t.Fatalf("origin of %s: %q, want recorded", addr, o)
	}
	p.assertNoChanges()
	var listed struct {
		Takes []struct {
			Origin  string `json:"origin"`
			Cached  bool   `json:"cached"`
			Current bool   `json:"current"`
		} `json:"takes"`
	}
	r := p.mustRun("takes", "-json", addr)
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatalf("takes -json: %v\n%s", err, r)
	}
	if tk := listed.Takes; len(tk) != 2 || tk[0].Origin != "" || tk[1].Origin != "recorded" || !tk[1].Cached || !tk[1].Current {
		t.Fatalf("takes of %s: %+v, want the service's and the recording, current and cached", addr, tk)
	}

	// To pg and back: the record, its origin with it.
	original := p.readFile("voxform.state.json")
	local := p.env
	p.env = append(append([]string(nil), local...), "VOXFORM_PG="+pgtest.Database(t))
	p.mustRun("state", "migrate", "-to", "pg")
	p.env = append(p.env, "VOXFORM_BACKEND=pg")
	if o := stateOrigin(t, p, addr); o != "recorded" {
		t.Fatalf("origin of %s in pg: %q, want recorded", addr, o)
	}
	p.assertNoChanges()
	p.mustRun("state", "migrate", "-to", "local")
	p.env = local
	if back := p.readFile("voxform.state.json"); back != original {
		t.Fatalf("the state came back from pg changed:\n%s\nwant:\n%s", back, original)
	}
	p.assertNoChanges()

	// A fresh clone (the manifest, the recording and the state; no
	// outputs) pulls the recorded output back from the remote cache.
	outputs := recordedOutputs(t, p)
	c := cloneWithoutOutputs(t, p, e, outputs)
	c.env = append(c.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	calls = e.stats(t).calls()
	c.mustRun("pull")
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("pull made %d API calls, want none", n)
	}
	if got := mustRead(t, c.path("build/greeting.wav")); !bytes.Equal(got, wav) {
		t.Fatal("pull did not restore build/greeting.wav byte for byte")
	}
	c.assertNoChanges()

	// Without recorded: the prompt is synthesized again: the take the
	// first apply made is restored free from the output cache; with a new
	// text, billed.
	p.writeFile("voxform.yaml", recordedManifest(""))
	changes, sum = p.plan()
	if sum.Restore != 1 || sum.changes() != 1 || sum.Cost.Characters != 0 || !slices.Contains(changes[0].Reasons, "recorded: removed, synthesized") {
		t.Fatalf("plan without the recording: %+v %+v, want the earlier take restored, saying why", sum, changes)
	}
	const text = "Welcome to the new help line."
	p.writeFile("voxform.yaml", strings.Replace(recordedManifest(""), "Welcome to the help line.", text, 1))
	changes, sum = p.plan()
	if sum.Replace != 1 || sum.changes() != 1 || sum.Cost.Characters != int64(len(text)) ||
		!slices.Contains(changes[0].Reasons, "recorded: removed, synthesized") {
		t.Fatalf("plan without the recording, a new text: %+v %+v, want one billed replace saying why", sum, changes)
	}
	if r := p.mustRun("plan"); !strings.Contains(r.stdout, "recorded: removed, synthesized") {
		t.Errorf("the plan does not say the recording is removed:\n%s", r)
	}
}

// TestRecordedListens: a recorded synthesis with listen: is checked once,
// priced at the recording's duration (its text bills nothing, so an
// estimate from its characters prices nothing), and the next apply has
// nothing to do: the check is recorded with the audio it sent. The
// recordings are takes the emulator made of the texts (so that it hears
// them): one copied as it is, the other converted from 22,050 Hz to
// 16,000 Hz, whose output has a frame more than the recording lasts.
func TestRecordedListens(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	p := newProject(t, "", e)
	const texts = `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  copied:
    voice: n
    text: "Welcome to the help line."
    output: build/copied.wav
    audio_config: { container: wav, sample_rate: 16000 }
    listen: true
  converted:
    voice: n
    text: "Thank you for calling the help line."
    output: build/converted.wav
    audio_config: { container: wav, sample_rate: %d }
    listen: true
%s`
	p.writeFile("voxform.yaml", fmt.Sprintf(texts, 22050, ""))
	p.mustRun("apply", "-auto-approve")
	p.writeFile("studio/copied.wav", p.readFile("build/copied.wav"))
	p.writeFile("studio/converted.wav", p.readFile("build/converted.wav"))
	p.mustRun("destroy", "-auto-approve")
	manifest := strings.Replace(fmt.Sprintf(texts, 16000, ""), "    output: build/copied.wav\n",
		"    output: build/copied.wav\n    recorded: studio/copied.wav\n", 1)
	manifest = strings.Replace(manifest, "    output: build/converted.wav\n",
		"    output: build/converted.wav\n    recorded: { path: studio/converted.wav, convert: true }\n", 1)
	p.writeFile("voxform.yaml", manifest)

	_, sum := p.plan()
	if sum.Cost.Characters != 0 || sum.Cost.AudioSeconds < 2.4 {
		t.Errorf("plan: cost %+v, want no characters and the recordings' seconds of checks", sum.Cost)
	}
	calls := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("first apply: %s", r)
	}
	if n := e.stats(t).calls() - calls; n != 1 {
		t.Errorf("first apply made %d API calls, want the converted audio's check (the copied audio's is in the cache, from its TTS take)", n)
	}
	var st struct {
		Resources map[string]struct {
			Origin  string `json:"origin"`
			Outputs []struct {
				Listen *struct {
					Seconds float64 `json:"seconds"`
					Pass    bool    `json:"pass"`
				} `json:"listen"`
			} `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"synthesis.copied", "synthesis.converted"} {
		r := st.Resources[addr]
		if r.Origin != "recorded" || len(r.Outputs) != 1 || r.Outputs[0].Listen == nil || !r.Outputs[0].Listen.Pass ||
			!(r.Outputs[0].Listen.Seconds > 0) {
			t.Errorf("%s: %+v, want its recorded output's passing check", addr, r)
		}
	}
	calls = e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("second apply: %s", r)
	}
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Errorf("second apply made %d API calls, want none (each check made once)", n)
	}
	p.assertNoChanges()
}

// TestRecordedNotTakenFromTheCache: whoever can write the remote cache
// can put any audio under a recorded synthesis's fingerprint, which is
// predictable (the recording's hash, its path, convert, the converter,
// the format). A new project with the same manifest and recording makes
// the output from the recording (free, exact), never from that entry.
func TestRecordedNotTakenFromTheCache(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	remote := t.TempDir()
	wav := speechLikeWAV(t, 330)
	const manifest = `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  g:
    voice: n
    text: "Welcome to the help line."
    output: build/g.wav
    audio_config: { container: wav, sample_rate: 16000 }
    recorded: studio/g.wav
  tts:
    voice: n
    text: "Thank you for calling."
    output: build/tts.wav
    audio_config: { container: wav, sample_rate: 16000 }
`
	project := func() *project {
		p := newProject(t, "", e)
		p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
		p.writeFile("studio/g.wav", string(wav))
		p.writeFile("voxform.yaml", manifest)
		return p
	}
	a := project()
	a.mustRun("apply", "-auto-approve")
	var st struct {
		Resources map[string]struct {
			Fingerprint string `json:"fingerprint"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(a.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	entry := func(addr string) string {
		fp := st.Resources[addr].Fingerprint
		return filepath.Join(remote, "v1", "entries", fp[:2], fp+".json")
	}
	forged := readEntry(t, entry("synthesis.g"))
	forged.Files = readEntry(t, entry("synthesis.tts")).Files // the TTS take's blob, sha256 and size
	writeEntry(t, entry("synthesis.g"), forged)

	b := project()
	changes, sum := b.plan()
	for _, c := range changes {
		if c.Address == "synthesis.g" && (c.Action != "create" || c.RestoreFrom != "") {
			t.Errorf("plan of a new project: %s %+v, want a create from the recording", c.Address, c)
		}
	}
	if sum.Restore != 1 || sum.Add != 1 {
		t.Errorf("plan of a new project: %+v, want the TTS take restored and the recording made", sum)
	}
	if r := b.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if got := mustRead(t, b.path("build/g.wav")); !bytes.Equal(got, wav) {
		t.Fatal("build/g.wav is not the recording byte for byte")
	}
	if o := stateOrigin(t, b, "synthesis.g"); o != "recorded" {
		t.Fatalf("origin of synthesis.g: %q, want recorded", o)
	}
}
