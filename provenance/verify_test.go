package provenance_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/provenance"
)

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// statementOf is a statement of the subject out/a.wav and the inputs
// deps (name -> content), with the digests of their contents now.
func statementOf(t *testing.T, dir string, subject []byte, deps map[string][]byte) *provenance.Statement {
	t.Helper()
	write(t, filepath.Join(dir, "out/a.wav"), string(subject))
	s := &provenance.Statement{
		Type: provenance.StatementType, PredicateType: provenance.PredicateType,
		Subject: []provenance.Descriptor{{Name: "out/a.wav", Digest: map[string]string{"sha256": sumOf(subject)}}},
		Predicate: provenance.Provenance{
			BuildDefinition: provenance.BuildDefinition{BuildType: provenance.BuildType, ExternalParameters: json.RawMessage(`{}`)},
			RunDetails:      provenance.RunDetails{Builder: provenance.Builder{ID: provenance.BuilderID}},
		},
	}
	for name, b := range deps {
		if !filepath.IsAbs(name) {
			write(t, filepath.Join(dir, name), string(b))
		}
		s.Predicate.BuildDefinition.ResolvedDependencies = append(s.Predicate.BuildDefinition.ResolvedDependencies,
			provenance.Descriptor{Name: name, Digest: map[string]string{"sha256": sumOf(b)}})
	}
	return s
}

func problems(t *testing.T, s *provenance.Statement, where provenance.Files) map[string]string {
	t.Helper()
	found, err := provenance.VerifyFiles(context.Background(), s, where)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range found {
		if f.Problem != "" {
			out[f.Name] = f.Problem
		}
	}
	return out
}

// TestVerifyFilesByte: verify passes on the files as attested and fails,
// naming the file, when one byte of the output or of an input changes or
// a file is gone.
func TestVerifyFilesByte(t *testing.T) {
	dir := t.TempDir()
	s := statementOf(t, dir, []byte("RIFF audio"), map[string][]byte{"rec/call.wav": []byte("recording"), "voxform.yaml": []byte("version: 1\n")})
	where := provenance.Files{Dir: dir}
	if p := problems(t, s, where); len(p) != 0 {
		t.Fatalf("intact: %v", p)
	}
	flip := func(rel string) func() {
		path := filepath.Join(dir, rel)
		b, _ := os.ReadFile(path)
		orig := string(b)
		b[len(b)/2] ^= 0x20
		os.WriteFile(path, b, 0o644)
		return func() { os.WriteFile(path, []byte(orig), 0o644) }
	}
	for _, rel := range []string{"out/a.wav", "rec/call.wav", "voxform.yaml"} {
		restore := flip(rel)
		if p := problems(t, s, where); len(p) != 1 || p[rel] != provenance.Modified {
			t.Errorf("one byte of %s changed: %v", rel, p)
		}
		restore()
	}
	os.Remove(filepath.Join(dir, "rec/call.wav"))
	if p := problems(t, s, where); p["rec/call.wav"] != provenance.Missing {
		t.Errorf("input removed: %v", p)
	}
}

// TestVerifyFilesRefusesOutside: a statement cannot make verify read a
// file outside the manifest directory (a path through "..", an absolute
// path, a link out of it, voxform's own files), unless it lies in a
// directory named for inputs.
func TestVerifyFilesRefusesOutside(t *testing.T) {
	outside := t.TempDir()
	secret := []byte("outside file")
	write(t, filepath.Join(outside, "secret.txt"), string(secret))
	dir := t.TempDir()
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt"))
	write(t, filepath.Join(dir, ".voxform/hashes.bin"), "x")
	s := statementOf(t, dir, []byte("a"), nil)
	for _, name := range []string{"../" + filepath.Base(outside) + "/secret.txt", filepath.Join(outside, "secret.txt"), "link.txt", ".voxform/hashes.bin"} {
		s.Predicate.BuildDefinition.ResolvedDependencies = append(s.Predicate.BuildDefinition.ResolvedDependencies,
			provenance.Descriptor{Name: name, Digest: map[string]string{"sha256": sumOf(secret)}})
	}
	p := problems(t, s, provenance.Files{Dir: dir})
	for _, d := range s.Predicate.BuildDefinition.ResolvedDependencies {
		if !strings.HasPrefix(p[d.Name], "refused") {
			t.Errorf("%s: %q, want refused", d.Name, p[d.Name])
		}
	}
	realOutside, _ := filepath.EvalSymlinks(outside)
	s.Predicate.BuildDefinition.ResolvedDependencies = []provenance.Descriptor{{Name: filepath.Join(realOutside, "secret.txt"), Digest: map[string]string{"sha256": sumOf(secret)}}}
	rel, _ := filepath.Rel(dir, filepath.Join(outside, "secret.txt"))
	s.Predicate.BuildDefinition.ResolvedDependencies = append(s.Predicate.BuildDefinition.ResolvedDependencies,
		provenance.Descriptor{Name: filepath.ToSlash(rel), Digest: map[string]string{"sha256": sumOf(secret)}})
	if p := problems(t, s, provenance.Files{Dir: dir, InputDirs: []string{outside}}); len(p) != 0 {
		t.Errorf("an input in -input-dir, by absolute path and through \"..\": %v", p)
	}
	// A link inside the input directory leading elsewhere is refused.
	os.Symlink(filepath.Join(dir, "out/a.wav"), filepath.Join(outside, "link.wav"))
	s.Predicate.BuildDefinition.ResolvedDependencies = []provenance.Descriptor{{Name: filepath.Join(outside, "link.wav"), Digest: map[string]string{"sha256": sumOf([]byte("a"))}}}
	if p := problems(t, s, provenance.Files{Dir: dir, InputDirs: []string{outside}}); !strings.HasPrefix(p[filepath.Join(outside, "link.wav")], "refused") {
		t.Errorf("a link out of the input directory: %v", p)
	}
}

// TestVerifyFilesInterrupted: an interrupt stops verify (no file is
// hashed once the context is done).
func TestVerifyFilesInterrupted(t *testing.T) {
	dir := t.TempDir()
	s := statementOf(t, dir, []byte("a"), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := provenance.VerifyFiles(ctx, s, provenance.Files{Dir: dir}); err == nil {
		t.Error("verify went on after its context was cancelled")
	}
}
