package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "import", synopsis: "adopt existing audio files as the outputs of declared syntheses", run: runImport})
}

const importUsage = `
Usage: voxform import [flags] ADDRESS FILE
       voxform import [flags] -dir DIR -match PATTERN

Adopts existing files as the outputs of declared syntheses, without
calling the service: each file is checked as apply checks the service's
audio (its container, and a WAV's sample rate and channels, as the
synthesis's audio_config asks), copied to the synthesis's output path (a
file already there with the same bytes is adopted in place) and recorded
under the synthesis's request, with origin "imported": the next plan
shows no change for it. A change of the declared request later replaces
it like any other output. The file is kept in the local output cache
under its content (never the request's fingerprint, whose entry is the
service's answer): 'voxform push' sends it, a fresh clone's 'voxform
pull' restores it, and once replaced, 'voxform use' can put it back.
Import makes no listening check: for a synthesis with listen:, the next
plan prices the check of the imported audio (free when the cache holds
one). Only a synthesis whose one output is its audio can be imported
(not one with cues: or deliver:).

With -dir, every file of DIR (not its subdirectories) whose name matches
PATTERN is imported: PATTERN is a file name holding {key} once, which
stands for a for_each key (or the name of a synthesis without for_each),
and {block} at most once, which stands for the synthesis block's name
(needed when a key is in several blocks); every other character stands
for itself. "{key}.wav" maps main.wav to synthesis.menu["main"];
"menu_{key}.wav" maps menu_main.wav to it. Files that do not match are
left alone. Every file is checked before any is written: a file that
names no declared synthesis, a format other than the declared one, an
address already recorded (unless -force) or an output path holding
another file refuses the whole import.

Flags:
`

func runImport(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "import", importUsage)
	var vars varFlags
	vars.register(fs)
	dir := fs.String("dir", "", "import the files of `DIR` whose names match -match")
	match := fs.String("match", "", "with -dir, the file names to import: `PATTERN` such as {key}.wav")
	force := fs.Bool("force", false, "adopt the file even if the address is recorded (its recorded output is replaced)")
	jsonOut := fs.Bool("json", false, "print what was imported as JSON")
	var lockTimeout time.Duration
	lockTimeoutFlag(fs, &lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var files []workspace.ImportFile
	var mp *workspace.MatchPattern
	switch {
	case *dir == "" && *match == "" && fs.NArg() == 2:
		files = []workspace.ImportFile{{Address: fs.Arg(0), Path: absFrom(env, fs.Arg(1))}}
	case *dir != "" && *match != "" && fs.NArg() == 0:
		var err error
		if mp, err = workspace.CompileMatch(*match); err != nil {
			return usageErrorf("import: %v", err)
		}
	default:
		return usageErrorf("import: want ADDRESS FILE, or -dir DIR -match PATTERN")
	}
	ws, err := openWorkspace(env, &vars, lockTimeout)
	if err != nil {
		return err
	}
	defer ws.Close()
	sess, err := ws.Lock(ctx, "import")
	if err != nil {
		return err
	}
	defer sess.Close()
	m, err := loadManifest(env, &vars)
	if err != nil {
		return err
	}
	was, err := approvalsBefore(sess, nil)
	if err != nil {
		return err
	}
	opts := workspace.ImportOptions{Force: *force}
	var done []workspace.Imported
	if mp != nil {
		done, err = sess.ImportDir(ctx, m, absFrom(env, *dir), mp, opts)
	} else {
		done, err = sess.Import(ctx, m, files, opts)
	}
	if cerr := sess.Close(); err == nil {
		err = cerr
	}
	changed, aerr := approvalChanges(ctx, ws, was)
	if err == nil {
		err = aerr
	}
	if werr := writeImported(env, done, changed, *jsonOut); err == nil {
		err = werr
	}
	return err
}

// writeImported prints what was imported (and recorded, also when a
// later file failed), and what became of the approvals of the resources
// it was imported over (approvalChanges, by address).
func writeImported(env *Env, done []workspace.Imported, approvals map[string]string, jsonOut bool) error {
	if jsonOut {
		type row struct {
			Address string `json:"address"`
			File    string `json:"file"`
			Output  string `json:"output"`
			SHA256  string `json:"sha256"`
			Size    int64  `json:"size"`
			InPlace bool   `json:"in_place"`
			// Approval says what became of the resource's approval.
			Approval string `json:"approval,omitempty"`
		}
		rows := make([]row, 0, len(done))
		for _, d := range done {
			rows = append(rows, row{d.Address, d.Path, d.Output.Path, d.Output.SHA256, d.Output.Size, d.InPlace, approvals[d.Address]})
		}
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"imported": rows})
	}
	for _, d := range done {
		how := "from " + untrusted.Escape(d.Path)
		if d.InPlace {
			how = "in place"
		}
		fmt.Fprintf(env.Stdout, "Imported %s: %s %s (sha256 %.12s, %d bytes)\n", untrusted.Escape(d.Address), untrusted.Escape(d.Output.Path), how, d.Output.SHA256, d.Output.Size)
		writeApprovalChange(env, d.Address, approvals[d.Address])
	}
	if len(done) > 0 {
		fmt.Fprintf(env.Stdout, "Imported %d file%s; no service was called, nothing was billed.\n", len(done), pluralS(len(done)))
	}
	return nil
}

// absFrom is name as an absolute path, relative to env.Dir (the
// directory -chdir names) when it is not absolute.
func absFrom(env *Env, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(env.Dir, name)
}
