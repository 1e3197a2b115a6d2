package e2e_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// helloManifest declares one synthesis, NAME, saying TEXT into OUTPUT.
func helloManifest(name, text, output string) string {
	return `version: 1
voices:
  n: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  ` + name + `:
    voice: n
    text: "` + text + `"
    output: ` + output + "\n"
}

// writeFile writes a project file, making its directory.
func (p *project) writeFile(rel, content string) {
	p.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p.path(rel)), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(p.path(rel), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) readFile(rel string) string {
	p.t.Helper()
	b, err := os.ReadFile(p.path(rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// editState rewrites the state file's JSON with edit.
func (p *project) editState(edit func(map[string]any)) {
	p.t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		p.t.Fatal(err)
	}
	edit(st)
	b, _ := json.MarshalIndent(st, "", "  ")
	p.writeFile("voxform.state.json", string(b))
}

// firstOutput is the first output entry of the recorded resource addr.
func firstOutput(st map[string]any, addr string) map[string]any {
	res := st["resources"].(map[string]any)[addr].(map[string]any)
	return res["outputs"].([]any)[0].(map[string]any)
}

// victim is a file beside the project that voxform must never touch.
func victim(t *testing.T, p *project) string {
	t.Helper()
	v := filepath.Join(filepath.Dir(p.dir), "victim.txt")
	if err := os.WriteFile(v, []byte("the user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, err := os.ReadFile(v)
		if err != nil || string(b) != "the user's file" {
			t.Errorf("the file outside the project was touched: %q, %v", b, err)
		}
	})
	return v
}

// A state file naming a path outside the project (relative or absolute) is
// refused before anything runs: destroy does not delete it, apply does not
// move it into the tree.
func TestStateNamingOutsidePathsIsRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	for _, bad := range []string{"../victim.txt", "ABS", "build/../../victim.txt", ".voxform/hashes.json"} {
		t.Run(bad, func(t *testing.T) {
			p := newProject(t, "", e)
			v := victim(t, p)
			if bad == "ABS" {
				bad = v
			}
			p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
			p.mustRun("apply", "-auto-approve")
			p.editState(func(st map[string]any) { firstOutput(st, "synthesis.hello")["path"] = bad })
			before := e.stats(t).calls()
			for _, args := range [][]string{{"destroy", "-auto-approve"}, {"apply", "-auto-approve"}, {"plan"}} {
				r := p.run(args...)
				if r.code != 1 || !strings.Contains(r.stderr, "resources[\"synthesis.hello\"].outputs[0].path") {
					t.Errorf("%s", r)
				}
			}
			if n := e.stats(t).calls() - before; n != 0 {
				t.Errorf("%d service calls with a refused state", n)
			}
			if !p.exists("build/hello.wav") {
				t.Error("the recorded output was deleted")
			}
		})
	}
}

// A saved plan naming a path outside the project is refused before
// anything runs, whatever action names it.
func TestSavedPlanNamingOutsidePathsIsRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	victim(t, p)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/moved.wav"))
	p.mustRun("plan", "-out", "move.plan")
	for name, edit := range map[string]func(a map[string]any){
		"move to":   func(a map[string]any) { a["moves"].([]any)[0].(map[string]any)["to"] = "../victim.txt" },
		"move from": func(a map[string]any) { a["moves"].([]any)[0].(map[string]any)["from"] = "../victim.txt" },
		"removal": func(a map[string]any) {
			a["removes"] = []any{"../victim.txt"}
		},
		"removal of an output not recorded": func(a map[string]any) {
			a["removes"] = []any{"main.yaml"}
		},
		"desired output": func(a map[string]any) {
			a["desired"].(map[string]any)["outputs"].([]any)[0].(map[string]any)["path"] = "../victim.txt"
		},
	} {
		t.Run(name, func(t *testing.T) {
			var plan map[string]any
			json.Unmarshal([]byte(p.readFile("move.plan")), &plan)
			edit(plan["plan"].(map[string]any)["actions"].([]any)[0].(map[string]any))
			b, _ := json.Marshal(plan)
			p.writeFile("evil.plan", string(b))
			r := p.run("apply", "evil.plan")
			if r.code != 1 || !strings.Contains(r.stderr, "synthesis.hello") {
				t.Errorf("%s", r)
			}
			if !p.exists("main.yaml") || !p.exists("build/hello.wav") {
				t.Error("a file was removed")
			}
		})
	}
}

// An output directory that is a symbolic link to outside the project is
// refused by plan and apply (nothing is written there) and by destroy
// (nothing is deleted there).
func TestOutputDirectoryLinkedOutsideIsRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	outside := filepath.Join(filepath.Dir(p.dir), "elsewhere")
	os.MkdirAll(outside, 0o755)
	if err := os.Symlink(outside, p.path("build")); err != nil {
		t.Fatal(err)
	}
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	for _, args := range [][]string{{"plan"}, {"apply", "-auto-approve"}} {
		r := p.run(args...)
		if r.code != 1 || !strings.Contains(r.stderr, "outside the manifest directory") {
			t.Errorf("%s", r)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("apply wrote outside the project: %v", entries)
	}
	if n := e.stats(t).Syntheses; n != 0 {
		t.Errorf("%d syntheses paid for an output that cannot be written", n)
	}
	// Applied into a real directory, then the directory is swapped for a
	// link to outside holding a file of the same name: destroy refuses.
	os.Remove(p.path("build"))
	p.mustRun("apply", "-auto-approve")
	os.Rename(p.path("build"), p.path("build.real"))
	os.WriteFile(filepath.Join(outside, "hello.wav"), []byte("not voxform's"), 0o644)
	os.Symlink(outside, p.path("build"))
	r := p.run("destroy", "-auto-approve")
	if r.code != 1 || !strings.Contains(r.stderr, "outside the manifest directory") {
		t.Errorf("%s", r)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "hello.wav")); string(b) != "not voxform's" {
		t.Errorf("destroy deleted or changed a file outside the project: %q", b)
	}
}

// A file voxform did not make at an output path is refused: the plan says
// so, apply pays for nothing and leaves the file, and -overwrite replaces it.
func TestFileVoxformDidNotMakeIsRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.writeFile("build/hello.wav", "the user's own recording")
	changes, _ := p.plan()
	if len(changes) != 1 || !strings.Contains(strings.Join(changes[0].Reasons, ";"), "build/hello.wav already exists and voxform did not make it") {
		t.Fatalf("plan does not say the create is refused: %+v", changes)
	}
	r := p.apply()
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "-overwrite") {
		t.Fatalf("%s", r)
	}
	if got := p.readFile("build/hello.wav"); got != "the user's own recording" {
		t.Fatalf("the user's file was replaced: %q", got)
	}
	if n := e.stats(t).Syntheses; n != 0 {
		t.Fatalf("%d syntheses paid for a refused resource", n)
	}
	p.mustRun("apply", "-auto-approve", "-overwrite")
	if got := p.readFile("build/hello.wav"); !strings.HasPrefix(got, "RIFF") {
		t.Fatalf("-overwrite did not write the output: %q", got[:min(len(got), 16)])
	}
	p.assertNoChanges()
}

// An output moved by hand is adopted only when the new path holds the
// recorded content; a new file the user put at the old name stays.
func TestAlreadyMovedOutputKeepsTheUsersFile(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/a.wav"))
	p.mustRun("apply", "-auto-approve")
	audio := p.readFile("build/a.wav")
	if err := os.Rename(p.path("build/a.wav"), p.path("build/b.wav")); err != nil {
		t.Fatal(err)
	}
	p.writeFile("build/a.wav", "the user's new take")
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/b.wav"))
	before := e.stats(t).calls()
	p.mustRun("apply", "-auto-approve")
	if got := p.readFile("build/a.wav"); got != "the user's new take" {
		t.Errorf("the user's file at the old name was lost: %q", got[:min(len(got), 16)])
	}
	if p.readFile("build/b.wav") != audio {
		t.Error("the output at the new path is not the recorded one")
	}
	if n := e.stats(t).calls() - before; n != 0 {
		t.Errorf("%d service calls for a move", n)
	}
	p.assertNoChanges()
}

// A resource renamed with a new text but the same output path keeps its
// new output, and the next plan has nothing to do.
func TestRenamedResourceKeepsItsOutput(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	p.writeFile("main.yaml", helloManifest("aaa", "Hello there, friend", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	if !p.exists("build/hello.wav") {
		t.Fatal("the renamed resource's output was deleted")
	}
	p.assertNoChanges()
	p.verify()
}

// Two inputs whose upload names would meet (a/b.wav and a__b.wav) are
// uploaded under distinct names, recorded, and each gets its own
// transcript: the file records map back exactly.
func TestUploadNamesAreUniquePerJob(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("rec/a/b.wav", string(speechLikeWAV(t, 300)))
	p.writeFile("rec/a__b.wav", string(speechLikeWAV(t, 500)))
	p.writeFile("main.yaml", `version: 1
transcriptions:
  calls:
    inputs: ["rec/**/*.wav"]
    api: batch
    language_code: en-IN
    output_dir: build/t
`)
	p.mustRun("apply", "-auto-approve")
	var st struct {
		Resources map[string]struct {
			FileID string `json:"file_id"`
			Source struct {
				Name string `json:"name"`
			} `json:"source"`
		} `json:"resources"`
	}
	json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st)
	a, b := st.Resources[`transcription.calls["rec/a/b.wav"]`], st.Resources[`transcription.calls["rec/a__b.wav"]`]
	if a.FileID == "" || a.FileID == b.FileID || a.Source.Name == b.Source.Name {
		t.Fatalf("two inputs share a file record: %+v %+v", a, b)
	}
	for rel, name := range map[string]string{"build/t/a/b.json": a.Source.Name, "build/t/a__b.json": b.Source.Name} {
		var doc struct {
			OriginalPath string `json:"original_path"`
		}
		json.Unmarshal([]byte(p.readFile(rel)), &doc)
		if doc.OriginalPath != name {
			t.Errorf("%s is the transcript of %q, want %q", rel, doc.OriginalPath, name)
		}
	}
	p.assertNoChanges()
}

// A saved plan is a promise of what apply does, not a script: apply plans
// again from the locked state and the manifest and refuses a plan file that
// says anything else (edited records, file operations or costs), so a plan
// file cannot delete or move a file, pay twice or slip past the budget.
func TestSavedPlanIsPlannedAgain(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	p.writeFile("notes.txt", "the user's notes")
	p.writeFile("main.yaml", helloManifest("hello", "Hello there, friend", "build/hello.wav"))
	p.mustRun("plan", "-out", "good.plan")
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	for name, edit := range map[string]func(a map[string]any){
		"a removal of a file the state does not record": func(a map[string]any) {
			prior := a["prior"].(map[string]any)
			prior["outputs"] = append(prior["outputs"].([]any), map[string]any{"path": "notes.txt", "sha256": sum("the user's notes"), "size": 16})
			a["removes"] = []any{"notes.txt"}
		},
		"an understated cost": func(a map[string]any) { a["cost"].(map[string]any)["characters"] = 1 },
		"a move the state does not need": func(a map[string]any) {
			a["action"] = "move"
			a["moves"] = []any{map[string]any{"from": "build/hello.wav", "to": "build/other.wav"}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var plan map[string]any
			json.Unmarshal([]byte(p.readFile("good.plan")), &plan)
			edit(plan["plan"].(map[string]any)["actions"].([]any)[0].(map[string]any))
			b, _ := json.Marshal(plan)
			p.writeFile("evil.plan", string(b))
			before := e.stats(t).calls()
			r := p.run("apply", "evil.plan")
			if r.code != 1 || !strings.Contains(r.stderr, "evil.plan") {
				t.Errorf("%s", r)
			}
			if n := e.stats(t).calls() - before; n != 0 {
				t.Errorf("%d service calls for a refused plan file", n)
			}
			if p.readFile("notes.txt") != "the user's notes" || !p.exists("build/hello.wav") {
				t.Error("a file was touched")
			}
		})
	}
	p.mustRun("apply", "good.plan")
	p.assertNoChanges()
}

// plan -out never replaces the state, an output or a file that is not a
// plan file.
func TestPlanOutReplacesOnlyPlanFiles(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	state := p.readFile("voxform.state.json")
	p.writeFile("notes.txt", "the user's notes")
	p.writeFile("main.yaml", helloManifest("hello", "Hello there, friend", "build/hello.wav"))
	for _, out := range []string{"voxform.state.json", "build/hello.wav", "notes.txt", ".voxform/p.plan"} {
		if r := p.run("plan", "-out", out); r.code != 1 {
			t.Errorf("plan -out %s: %s", out, r)
		}
	}
	if p.readFile("voxform.state.json") != state || p.readFile("notes.txt") != "the user's notes" {
		t.Fatal("plan -out replaced a file that is not a plan file")
	}
	p.mustRun("plan", "-out", "a.plan")
	p.mustRun("plan", "-out", "a.plan") // a plan file may be replaced
}

// A kill between renaming an output into place and recording it leaves a
// written entry; the next apply records that output without paying again.
// (The state is made as such a kill leaves it: the resource unrecorded,
// its output noted as written with the request's fingerprint.)
func TestWrittenOutputIsRecordedWithoutPaying(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", helloManifest("hello", "Hello there", "build/hello.wav"))
	p.mustRun("apply", "-auto-approve")
	p.editState(func(st map[string]any) {
		res := st["resources"].(map[string]any)
		hello := res["synthesis.hello"].(map[string]any)
		out := hello["outputs"].([]any)[0].(map[string]any)
		st["written"] = []any{map[string]any{"path": out["path"], "address": "synthesis.hello", "sha256": out["sha256"],
			"size": out["size"], "fingerprint": hello["fingerprint"]}}
		delete(res, "synthesis.hello")
	})
	changes, sum := p.plan()
	if len(changes) != 1 || changes[0].Action != "move" || sum.Cost.Characters != 0 {
		t.Fatalf("plan: %+v %+v, want one free move", changes, sum)
	}
	before := e.stats(t).calls()
	p.mustRun("apply", "-auto-approve")
	if n := e.stats(t).calls() - before; n != 0 {
		t.Fatalf("%d service calls to record an output already written", n)
	}
	p.assertNoChanges()
	p.verify()
}
