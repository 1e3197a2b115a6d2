package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/schema"
)

// Every command answers -h with its usage, printed once, and exit 0.
func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			env, stdout, _ := manifestEnv(t, nil)
			if code := runCmd(env, name, "-h"); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if n := strings.Count(stdout.String(), "Usage: voxform "+name); n != 1 {
				t.Errorf("usage printed %d times:\n%s", n, stdout)
			}
		})
	}
}

func TestDispatchErrors(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		msg, hint  string
		wantStdout string
		noStdout   bool // a usage error prints the error, not the usage
	}{
		{args: []string{"aply"}, code: ExitError, msg: `voxform: unknown command "aply"`, hint: `hint: did you mean "apply"?`},
		{args: []string{"-chdir", "no/such/dir", "plan"}, code: ExitError, msg: "voxform: -chdir no/such/dir: not a directory"},
		{args: []string{"plan", "-bogus"}, code: ExitError, msg: "flag provided but not defined: -bogus", hint: "hint: run with -h for usage", noStdout: true},
		{args: []string{"apply", "-parallelism", "many"}, code: ExitError, msg: "voxform: apply: invalid value \"many\" for flag -parallelism: parse error\n", hint: "hint: run with -h for usage\n", noStdout: true},
		{args: []string{"version", "extra"}, code: ExitError, msg: "voxform: version takes no arguments"},
		{args: []string{}, code: ExitError, wantStdout: "Commands:"},
		{args: []string{"-h"}, code: ExitOK, wantStdout: "Commands:"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env, stdout, stderr := manifestEnv(t, nil)
			if code := runCmd(env, tt.args...); code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if !strings.Contains(stderr.String(), tt.msg) || !strings.Contains(stderr.String(), tt.hint) {
				t.Errorf("stderr %q, want %q and %q", stderr, tt.msg, tt.hint)
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q, want %q", stdout, tt.wantStdout)
			}
			if tt.noStdout && stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

func TestChdir(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"sub/main.yaml": validManifest})
	if code := runCmd(env, "-chdir", "sub", "validate"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr.String()+stdout.String(), "warning") {
		t.Errorf("validate in sub/ did not see its manifest: %q %q", stdout, stderr)
	}
}

func TestInitWritesStarterAndGitignore(t *testing.T) {
	env, _, stderr := manifestEnv(t, map[string]string{".gitignore": "build/"})
	if code := runCmd(env, "init"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "validate"); code != ExitOK {
		t.Errorf("the starter manifest does not validate: %s", stderr)
	}
	// The editor's schema line names a file that exists, offline, and is
	// the schema of the voxform that runs: rewritten when it is not.
	starter, _ := os.ReadFile(filepath.Join(env.Dir, "main.yaml"))
	line, _, _ := strings.Cut(string(starter), "\n")
	ref, ok := strings.CutPrefix(line, "# yaml-language-server: $schema=")
	if !ok || strings.Contains(ref, "://") {
		t.Fatalf("schema line %q does not name a local file", line)
	}
	got, err := os.ReadFile(filepath.Join(env.Dir, filepath.FromSlash(ref)))
	if err != nil || !bytes.Equal(got, schema.JSON) {
		t.Errorf("the schema line's file %s: %v, same as the schema: %v", ref, err, bytes.Equal(got, schema.JSON))
	}
	os.WriteFile(filepath.Join(env.Dir, filepath.FromSlash(ref)), []byte(`{"from": "an older voxform"}`), 0o644)
	runCmd(env, "validate")
	if got, _ := os.ReadFile(filepath.Join(env.Dir, filepath.FromSlash(ref))); !bytes.Equal(got, schema.JSON) {
		t.Errorf("an older schema file is not brought up to date by validate: %s", got)
	}
	gi, _ := os.ReadFile(filepath.Join(env.Dir, ".gitignore"))
	for _, want := range []string{"build/\n", ".voxform/\n", "voxform.state.json.lock\n", "voxform.state.json.journal\n"} {
		if !strings.Contains(string(gi), want) {
			t.Errorf(".gitignore lacks %q:\n%s", want, gi)
		}
	}
	before, _ := os.ReadFile(filepath.Join(env.Dir, "main.yaml"))
	os.WriteFile(filepath.Join(env.Dir, "main.yaml"), append(before, []byte("# edited\n")...), 0o644)
	runCmd(env, "init")
	after, _ := os.ReadFile(filepath.Join(env.Dir, "main.yaml"))
	if !strings.HasSuffix(string(after), "# edited\n") {
		t.Error("init overwrote an existing manifest")
	}
}

// TestInitLeavesAGitignoreLinkAlone: a .gitignore that is a symbolic link
// (committed by anyone) is not appended to through the link, which could
// lead anywhere; init says so and writes nothing there.
func TestInitLeavesAGitignoreLinkAlone(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(victim, []byte("export PATH\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, _, stderr := manifestEnv(t, nil)
	if err := os.Symlink(victim, filepath.Join(env.Dir, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if code := runCmd(env, "init"); code == ExitOK || !strings.Contains(stderr.String(), "not a regular file") {
		t.Errorf("init through a .gitignore link: exit %d, %s; want an error saying it is not a regular file", code, stderr)
	}
	if got, _ := os.ReadFile(victim); string(got) != "export PATH\n" {
		t.Errorf("the link's target was written: %q", got)
	}
}
