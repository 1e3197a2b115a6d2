package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/miniotest"
)

const twoPrompts = `version: 1
voices:
  n: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  welcome: { voice: n, text: "नमस्ते, स्वागत है।", output: build/welcome.wav }
  hold: { voice: n, text: "कृपया प्रतीक्षा करें।", output: build/hold.wav }
`

// Reverting a text to an earlier value restores its earlier audio from
// the local cache: the plan shows a free restore, the apply calls nothing,
// and the file is the one first made, byte for byte.
func TestRevertRestoresFromCache(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	p := newProject(t, "", e)
	p.writeFile("voxform.yaml", twoPrompts)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	first := p.readFile("build/welcome.wav")
	editFile(t, p.path("voxform.yaml"), "नमस्ते, स्वागत है।", "नमस्ते, आपका स्वागत है।")
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if p.readFile("build/welcome.wav") == first {
		t.Fatal("the edited text made the same audio")
	}
	editFile(t, p.path("voxform.yaml"), "नमस्ते, आपका स्वागत है।", "नमस्ते, स्वागत है।")
	changes, sum := p.plan()
	if sum.Restore != 1 || sum.changes() != 1 || sum.Cost.Characters != 0 || changes[0].RestoreFrom != "local" {
		t.Fatalf("plan after the revert: %+v %+v, want one free restore from the local cache", sum, changes)
	}
	before := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if calls := e.stats(t).calls() - before; calls != 0 {
		t.Errorf("the restore made %d calls", calls)
	}
	if p.readFile("build/welcome.wav") != first {
		t.Error("the restored audio is not the audio first made")
	}
	p.assertNoChanges()
	// Without the cache the same revert is billed work again.
	editFile(t, p.path("voxform.yaml"), "नमस्ते, स्वागत है।", "नमस्ते, आपका स्वागत है।")
	if _, sum := p.plan("-cache=off"); sum.Replace != 1 || sum.Cost.Characters == 0 {
		t.Errorf("plan -cache=off: %+v, want a billed replace", sum)
	}
}

// withRemote points p at the S3 remote url on server s, credentials in the
// standard AWS variables.
func withRemote(p *project, s *miniotest.Server, url string) {
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE="+url, "VOXFORM_CACHE_ENDPOINT=http://"+s.Endpoint,
		"AWS_ACCESS_KEY_ID="+s.AccessKey, "AWS_SECRET_ACCESS_KEY="+s.SecretKey, "AWS_REGION=us-east-1")
}

// A second repository asking for the same work restores it from the team's
// remote cache (MinIO here) with no call to the service; a fresh clone of
// an applied project with its state but no outputs pulls every output back,
// byte for byte, with no call either.
func TestRemoteCacheAcrossRepositories(t *testing.T) {
	t.Parallel()
	s := miniotest.Start(t)
	url := s.URL(s.Bucket(t), "team/speech")
	e := startEmulator(t, emulator.Options{Seed: 7})
	for _, example := range []string{"ivr-prompts", "short-clips", "call-transcripts"} {
		t.Run(example, func(t *testing.T) {
			a := newProject(t, example, e)
			withRemote(a, s, url)
			if r := a.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			outputs := recordedOutputs(t, a)
			if len(outputs) == 0 {
				t.Fatal("nothing recorded")
			}
			// A second repository: the same manifest, its own state and
			// local cache, the same remote.
			b := newProject(t, example, e)
			withRemote(b, s, url)
			changes, sum := b.plan()
			if sum.Restore == 0 || sum.Restore != sum.changes() || sum.Cost.Characters != 0 || sum.Cost.AudioSeconds != 0 {
				t.Fatalf("second repository: %+v, want only free restores", sum)
			}
			for _, c := range changes {
				if c.RestoreFrom != url {
					t.Errorf("%s restores from %q, want %s", c.Address, c.RestoreFrom, url)
				}
			}
			before := e.stats(t).calls()
			if r := b.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			if calls := e.stats(t).calls() - before; calls != 0 {
				t.Errorf("the second repository made %d calls", calls)
			}
			sameOutputs(t, a, b, outputs)
			b.assertNoChanges()

			// A fresh clone: the manifest and the state, no outputs, an
			// empty local cache.
			c := cloneWithoutOutputs(t, a, e, outputs)
			withRemote(c, s, url)
			before = e.stats(t).calls()
			r := c.run("pull")
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			if calls := e.stats(t).calls() - before; calls != 0 {
				t.Errorf("pull made %d calls", calls)
			}
			sameOutputs(t, a, c, outputs)
			c.assertNoChanges()
		})
	}
}

// recordedOutputs lists the output paths p's state records.
func recordedOutputs(t *testing.T, p *project) []string {
	t.Helper()
	var st struct {
		Resources map[string]struct {
			Outputs []struct{ Path string } `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range st.Resources {
		for _, o := range r.Outputs {
			out = append(out, o.Path)
		}
	}
	return out
}

// sameOutputs fails unless every path holds the same bytes in a and b.
func sameOutputs(t *testing.T, a, b *project, paths []string) {
	t.Helper()
	for _, rel := range paths {
		x, err1 := os.ReadFile(a.path(rel))
		y, err2 := os.ReadFile(b.path(rel))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs: %v %v (%d and %d bytes)", rel, err1, err2, len(x), len(y))
		}
	}
}

// cloneWithoutOutputs copies p's directory as git would check it out when
// the outputs are ignored: everything but the recorded outputs and .voxform.
func cloneWithoutOutputs(t *testing.T, p *project, e *emu, outputs []string) *project {
	t.Helper()
	c := newProject(t, "", e)
	skip := map[string]bool{}
	for _, o := range outputs {
		skip[o] = true
	}
	err := filepath.WalkDir(p.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p.dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && (rel == ".voxform" || strings.HasPrefix(rel, ".cache")):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(c.path(rel), 0o755)
		case skip[rel]:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(c.path(rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
