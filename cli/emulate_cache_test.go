package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// restoreLine is how the plan table shows a resource restored from the
// local output cache.
const restoreLine = "| restore | synthesis.hello | not in state; from the local cache"

// cacheFiles counts the regular files below dir (none when it is absent).
func cacheFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && !strings.HasSuffix(p, string(filepath.Separator)+"lock") {
			n++
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return n
}

// TestEmulatedOutputsStayApart: applying a plan made with -emulate in one
// project keeps the emulator's audio in the user's local cache; a plan against the
// service in another project with the same manifest and the same cache
// directory must bill a create, not restore that audio as the service's.
func TestEmulatedOutputsStayApart(t *testing.T) {
	a, _, _ := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	var s stream
	if code := s.run(a, "plan", "-emulate", "-out", "e.plan"); code != ExitOK {
		t.Fatalf("plan -emulate -out: exit %d: %s", code, &s.all)
	}
	if code := s.run(a, "apply", "e.plan"); code != ExitOK {
		t.Fatalf("apply e.plan: exit %d: %s", code, &s.all)
	}

	// Another -emulate run, in another project, restores what the
	// emulator made.
	c, _, _ := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	c.CacheDir = a.CacheDir
	if code := s.run(c, "plan", "-emulate"); code != ExitOK {
		t.Fatalf("plan -emulate: exit %d: %s", code, &s.all)
	}
	if !strings.Contains(s.stdout.String(), restoreLine) {
		t.Errorf("a second -emulate run does not restore from the emulator's cache:\n%s", &s.stdout)
	}

	b, _, _, run := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	b.CacheDir = a.CacheDir
	if code := s.run(b, "plan"); code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, &s.all)
	}
	if strings.Contains(s.stdout.String(), "restore") || !strings.Contains(s.stdout.String(), "| + | create | synthesis.hello") {
		t.Errorf("a plan against the service restores the emulator's outputs:\n%s", &s.stdout)
	}
	if code := s.run(b, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, &s.all)
	}
	if got := statsOf(t, run).Syntheses; got != 2 {
		t.Errorf("the service made %d syntheses, want 2 (none taken from the emulator's cache)", got)
	}
}

// TestEmulateLeavesRemoteAlone: with a remote cache configured, apply
// -emulate sends nothing to it (nor asks it), and says so once.
func TestEmulateLeavesRemoteAlone(t *testing.T) {
	remote := t.TempDir()
	manifest := planManifest + "cache: { remote: \"file://" + filepath.ToSlash(remote) + "\" }\n"
	a, _, _ := manifestEnv(t, map[string]string{"voxform.yaml": manifest})
	var s stream
	if code := s.run(a, "apply", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply -emulate: exit %d: %s", code, &s.all)
	}
	if n := cacheFiles(t, remote); n != 0 {
		t.Errorf("apply -emulate put %d file(s) in the remote cache", n)
	}
	note := "voxform: -emulate: the remote output cache is not used"
	if got := strings.Count(s.stderr.String(), note); got != 1 {
		t.Errorf("the remote left out is said %d times, want once:\n%s", got, &s.stderr)
	}
	if !exists(a.Dir, "build/hello.wav") {
		t.Error("apply -emulate produced no output")
	}

	// A teammate's plan against the service, on a fresh machine, bills it.
	b, _, _, _ := emuEnv(t, map[string]string{"voxform.yaml": manifest}, emulator.Options{})
	if code := s.run(b, "plan"); code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, &s.all)
	}
	if strings.Contains(s.stdout.String(), "restore") {
		t.Errorf("a teammate's plan restores the emulator's outputs:\n%s", &s.stdout)
	}
	// Without a remote there is nothing to say.
	if code := s.run(a, "plan", "-emulate", "-cache=local"); code != ExitOK || strings.Contains(s.stderr.String(), note) {
		t.Errorf("plan -emulate -cache=local: exit %d, says the remote is not used:\n%s", code, &s.all)
	}
}

// TestCacheGCCollectsEmulated: cache gc collects the emulator's outputs
// as it does the service's: kept while a state references them, removed
// once none does.
func TestCacheGCCollectsEmulated(t *testing.T) {
	a, _, _ := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	var s stream
	if code := s.run(a, "apply", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply -emulate: exit %d: %s", code, &s.all)
	}
	emulated := filepath.Join(a.CacheDir, "emulated", "v1", "entries")
	before := cacheFiles(t, emulated)
	if before == 0 {
		t.Fatal("apply -emulate kept nothing in the emulator's cache")
	}
	if code := s.run(a, "cache", "gc", "-older-than=0"); code != ExitOK {
		t.Fatalf("cache gc: exit %d: %s", code, &s.all)
	}
	if got := cacheFiles(t, emulated); got != before {
		t.Errorf("cache gc removed entries the state references: %d left of %d", got, before)
	}
	if code := s.run(a, "destroy", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("destroy -emulate: exit %d: %s", code, &s.all)
	}
	if code := s.run(a, "cache", "gc", "-older-than=0"); code != ExitOK {
		t.Fatalf("cache gc: exit %d: %s", code, &s.all)
	}
	if got := cacheFiles(t, emulated); got != 0 {
		t.Errorf("cache gc left %d entries of the emulator no state references", got)
	}
	if !strings.Contains(s.stdout.String(), "Removed 2 entries") {
		t.Errorf("cache gc does not count the emulator's entries:\n%s", &s.stdout)
	}
}
