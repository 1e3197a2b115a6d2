package executor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// createOutput opens rel below dir as an output that may replace a file
// there (as a recorded output may be).
func createOutput(dir, rel string) (*outputFile, error) {
	o, err := openTestOutput(dir, rel)
	if err != nil {
		return nil, err
	}
	return o, o.wait()
}

func openTestOutput(dir, rel string) (*outputFile, error) {
	root, err := owned.Open(dir)
	if err != nil {
		return nil, err
	}
	return openOutput(root, rel, owner{replace: true})
}

func TestOutputFileCommitIsAtomic(t *testing.T) {
	dir := t.TempDir()
	o, err := createOutput(dir, "build/a/out.wav")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write([]byte("RIFF....partial")); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "build/a/out.wav")
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatalf("output visible before commit: %v", err)
	}
	out, err := o.Commit(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(final)
	if string(b) != "RIFF....partial" || out.Size != int64(len(b)) || out.Path != "build/a/out.wav" {
		t.Fatalf("committed %q as %+v", b, out)
	}
	sum, _, _ := state.HashFile(final)
	if sum != out.SHA256 {
		t.Errorf("recorded hash %s, file hash %s", out.SHA256, sum)
	}
}

func TestOutputFileSeekRehashes(t *testing.T) {
	dir := t.TempDir()
	o, _ := createOutput(dir, "x.bin")
	o.Write([]byte("0000abcd"))
	o.Seek(0, 0)
	o.Write([]byte("1111"))
	out, err := o.Commit(nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, size, _ := state.HashFile(filepath.Join(dir, "x.bin"))
	if sum != out.SHA256 || size != out.Size || size != 8 {
		t.Errorf("after seek: recorded %+v, file %s %d", out, sum, size)
	}
}

func TestOutputFileFailedValidationLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.wav"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ := createOutput(dir, "keep.wav")
	o.Write([]byte("garbage"))
	if _, err := o.Commit(func(string) error { return errors.New("not a WAV file") }); err == nil {
		t.Fatal("invalid output committed")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "keep.wav"))
	if string(b) != "old" {
		t.Errorf("previous output replaced by an invalid one: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}

func TestSweepTempsRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	o, _ := createOutput(dir, "a.wav")
	o.Write([]byte("x"))
	// a killed process never commits or aborts
	o.f.Close()
	os.WriteFile(filepath.Join(dir, "b.wav"), []byte("y"), 0o644)
	root, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sweepTemps(root, []string{"a.wav"})
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "b.wav" {
		t.Errorf("after sweep: %v", entries)
	}
}

// An output whose directory cannot be made fails before anything is sent:
// openOutput answers at once, not at the first write.
func TestOpenOutputFailsBeforeTheCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "build"), []byte("a file, not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openTestOutput(dir, "build/a.wav"); err == nil {
		t.Fatal("an output under a file was opened")
	}
	o, err := openTestOutput(dir, "ok/a.wav")
	if err != nil {
		t.Fatal(err)
	}
	if o.TempPath() == "" {
		t.Error("no temporary file")
	}
	o.Abort()
}

// commitTestOutput writes content to rel through openOutput on root and
// commits it.
func commitTestOutput(root *owned.Root, rel, content string) error {
	o, err := openOutput(root, rel, owner{})
	if err != nil {
		return err
	}
	if _, err := o.Write([]byte(content)); err != nil {
		o.Abort()
		return err
	}
	_, err = o.Commit(nil)
	return err
}

// An output directory renamed away while an apply runs, and a link to
// outside put in its place, is refused for the outputs that follow: the
// handle opened for the first output is not trusted where its directory
// no longer is.
func TestOutputDirectoryRenamedAwayMidApplyIsRefused(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := commitTestOutput(root, "build/a.raw", "first"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "build"), filepath.Join(dir, "build.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	if err := commitTestOutput(root, "build/b.raw", "second"); err == nil {
		t.Error("an output was written through a directory swapped for a link to outside")
	}
	for _, p := range []string{filepath.Join(outside, "b.raw"), filepath.Join(dir, "build.old", "b.raw")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: written outside the path declared (%v)", p, err)
		}
	}
}

// An output directory removed while an apply runs is made again for the
// outputs that follow, as it was for the first.
func TestOutputDirectoryRemovedMidApplyIsRecreated(t *testing.T) {
	dir := t.TempDir()
	root, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := commitTestOutput(root, "build/a.raw", "first"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	if err := commitTestOutput(root, "build/b.raw", "second"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "build", "b.raw")); err != nil || string(b) != "second" {
		t.Errorf("build/b.raw after its directory was removed: %q, %v", b, err)
	}
}

// An output whose temporary file cannot be made (a name the final path
// takes but its temporary name is too long for; a full disk or too many
// open files do the same) ends its use of the kept directory: a lone
// writer's syncs of that directory afterwards do not wait to gather other
// writers (every one of them waited the directory's 2 ms when the failed
// output stayed counted). The quickest of 20 syncs is compared, which a
// loaded machine slows only if it slows every one.
func TestFailedOutputLeavesNoWriter(t *testing.T) {
	dir := t.TempDir()
	root, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	w := &outputs{dir: dir, root: root}
	quickest := func() time.Duration {
		best := time.Hour
		for range 20 {
			d, err := root.OutputDir("build/x.wav")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(start))
			d.Close()
		}
		return best
	}
	quickest() // the directory made and kept
	a := &planner.Action{Type: planner.Create, Address: "synthesis.long"}
	if _, err := w.output(a, "build/"+strings.Repeat("a", 226)+".wav"); err == nil {
		t.Fatal("the temporary file of a 226-character name was made")
	}
	if d := quickest(); d >= 2*time.Millisecond {
		t.Errorf("a lone writer's quickest directory sync took %v after an output failed to make its temporary file: it waits for a writer still counted", d)
	}
}
