package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "init", synopsis: "write a starter manifest and .gitignore", run: runInit})
}

const initUsage = `
Usage: voxform init [flags]

Writes a starter manifest (main.yaml) and a .gitignore that keeps voxform's
local files (.voxform/, the state lock and journal) out of git. Existing
files are never overwritten.

Flags:
`

const starterManifest = `# yaml-language-server: $schema=` + state.SchemaPath + `
# A starter voxform manifest. Run 'voxform plan -emulate' to see what it would
# do against the built-in emulator, and 'voxform apply -emulate' to do it.
# (voxform keeps the schema named above current in .voxform/ for editors.)
version: 1

service:
  profile: live                          # the live service (documented: the service documents)
  # base_url: https://api.vachana.ai     # the live profile's default; or set VOXFORM_BASE_URL
  api_key_env: VOXFORM_API_KEY           # the environment variable holding the key

variables:
  language: hi-IN

voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: "${var.language}", speed: medium }

syntheses:
  welcome:
    voice: narrator
    text: "नमस्ते! आपका स्वागत है।"
    audio_config: { container: wav, sample_rate: 24000 }
    output: build/welcome.wav
`

// gitignoreLines are the local files voxform writes that do not belong in git.
var gitignoreLines = []string{
	".voxform/",
	"voxform.state.json.lock",
	"voxform.state.json.journal",
}

func runInit(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "init", initUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("init takes no arguments")
	}
	return initProject(env)
}

func initProject(env *Env) error {
	manifestPath := filepath.Join(env.Dir, "main.yaml")
	existing, _ := filepath.Glob(filepath.Join(env.Dir, "*.y*ml"))
	switch {
	case len(existing) > 0:
		fmt.Fprintf(env.Stdout, "%s already holds a manifest (%s): left as it is\n", env.Dir, filepath.Base(existing[0]))
	default:
		if err := os.WriteFile(manifestPath, []byte(starterManifest), 0o644); err != nil {
			return fmt.Errorf("write starter manifest: %w", err)
		}
		fmt.Fprintln(env.Stdout, "wrote main.yaml")
	}
	if err := state.KeepSchema(env.Dir, schema.JSON); err != nil {
		return fmt.Errorf("write the manifest schema for editors: %w", err)
	}
	added, err := ensureGitignore(filepath.Join(env.Dir, ".gitignore"))
	if err != nil {
		return err
	}
	if added > 0 {
		fmt.Fprintf(env.Stdout, "added %d line(s) to .gitignore\n", added)
	}
	fmt.Fprintln(env.Stdout, "next: voxform plan -emulate")
	return nil
}

// ensureGitignore appends the lines voxform needs that are missing. A
// .gitignore that is a symbolic link or not a regular file is left alone
// (appending through a committed link would write outside the project),
// and the lines are appended, never the file rewritten.
func ensureGitignore(path string) (int, error) {
	var old []byte
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return 0, fmt.Errorf("write .gitignore: %s is not a regular file (a symbolic link?); add %s to it yourself", path, strings.Join(gitignoreLines, ", "))
		}
		f, err := owned.OpenRegular(path)
		if err != nil {
			return 0, fmt.Errorf("read .gitignore: %w", err)
		}
		old, err = io.ReadAll(io.LimitReader(f, maxGitignore+1))
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("read .gitignore: %w", err)
		}
		if len(old) > maxGitignore {
			return 0, fmt.Errorf("read .gitignore: larger than %d bytes, the limit init reads", maxGitignore)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("read .gitignore: %w", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var b strings.Builder
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		b.WriteString("\n")
	}
	added := 0
	for _, l := range gitignoreLines {
		if !have[l] {
			b.WriteString(l + "\n")
			added++
		}
	}
	if added == 0 {
		return 0, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return 0, fmt.Errorf("write .gitignore: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return 0, fmt.Errorf("write .gitignore: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write .gitignore: %w", err)
	}
	return added, nil
}

// maxGitignore is the largest .gitignore init reads: 1 MiB.
const maxGitignore = 1 << 20
