package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/provenance"
)

// maxProvenanceFiles is the most provenance files one verify reads.
const maxProvenanceFiles = 10_000

// provenanceVerifyOptions are the flags of provenance verify.
type provenanceVerifyOptions struct {
	pub       string
	inputDirs []string
	json      bool
}

func runProvenanceVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "provenance verify", provenanceUsage)
	var o provenanceVerifyOptions
	fs.StringVar(&o.pub, "pub", "", "require each file to be a DSSE envelope signed by the ed25519 key in `FILE` (a public or private key, PEM)")
	fs.Var(repeated{&o.inputDirs}, "input-dir", "read inputs named by absolute path inside `DIR` (repeatable; a transcription's input_dirs:)")
	fs.BoolVar(&o.json, "json", false, "one JSON object per file checked")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("provenance verify: expected the provenance files (or directories) to check")
	}
	pub, err := publicKey(env, o.pub)
	if err != nil {
		return err
	}
	files, err := provenanceFiles(env, fs.Args())
	if err != nil {
		return err
	}
	where := provenance.Files{Dir: env.Dir}
	for _, d := range o.inputDirs {
		where.InputDirs = append(where.InputDirs, realDir(envPath(env, d)))
	}
	var f findings
	bad, checked := 0, 0
	for _, file := range files {
		n, problems, err := verifyProvenanceFile(ctx, env, &o, pub, where, file)
		if err != nil {
			return err
		}
		checked += n
		if problems > 0 {
			bad++
		}
	}
	if !o.json {
		fmt.Fprintf(env.Stdout, "Verified %d provenance file(s) naming %d file(s): %d failed.\n", len(files), checked, bad)
	}
	if bad > 0 {
		f.add(fmt.Sprintf("%d provenance file(s) failed", bad), "a file named differs from the one the statement was made for, or the signature is not the key's")
	}
	return f.err()
}

// publicKey is the key of -pub (nil without it).
func publicKey(env *Env, name string) (ed25519.PublicKey, error) {
	if name == "" {
		return nil, nil
	}
	b, err := provenance.ReadKeyFile(envPath(env, name))
	var pub ed25519.PublicKey
	if err == nil {
		pub, err = provenance.ParsePublicKey(b)
	}
	if err != nil {
		return nil, fmt.Errorf("-pub %s: %w", name, err)
	}
	return pub, nil
}

// provenanceFiles are the files named, a directory standing for the
// provenance files below it; at most maxProvenanceFiles.
func provenanceFiles(env *Env, args []string) ([]string, error) {
	var out []string
	add := func(p string) error {
		if len(out) >= maxProvenanceFiles {
			return fmt.Errorf("provenance verify: more than %d files, the most one run checks (maxProvenanceFiles); name fewer", maxProvenanceFiles)
		}
		out = append(out, p)
		return nil
	}
	for _, a := range args {
		root := envPath(env, a)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == root && !d.IsDir() {
				return add(p)
			}
			if d.Type().IsRegular() && (strings.HasSuffix(p, ".intoto.json") || strings.HasSuffix(p, ".intoto.dsse.json")) {
				return add(p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("provenance verify: %w", err)
		}
	}
	return out, nil
}

// verifyProvenanceFile checks one file and reports what it finds; it
// returns how many files it names were checked and how many problems
// there were. Only an interruption is an error.
func verifyProvenanceFile(ctx context.Context, env *Env, o *provenanceVerifyOptions, pub ed25519.PublicKey, where provenance.Files, file string) (int, int, error) {
	name := file
	if r, err := filepath.Rel(env.Dir, file); err == nil && filepath.IsLocal(r) {
		name = filepath.ToSlash(r)
	}
	st, err := readProvenance(file, pub)
	if err != nil {
		reportProvenance(env, o, name, nil, err)
		return 0, 1, nil
	}
	found, err := provenance.VerifyFiles(ctx, st, where)
	if err != nil {
		return 0, 0, err
	}
	reportProvenance(env, o, name, found, nil)
	problems := 0
	for _, fd := range found {
		if fd.Problem != "" {
			problems++
		}
	}
	return len(found), problems, nil
}

// readProvenance reads a provenance file (bounded: provenance.MaxFileBytes)
// and returns its statement: with pub, only from an envelope pub signed.
func readProvenance(file string, pub ed25519.PublicKey) (*provenance.Statement, error) {
	fh, err := owned.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, provenance.MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	rec, err := provenance.ReadRecord(b)
	switch {
	case err != nil:
		return nil, err
	case rec.Envelope != nil && pub == nil:
		return nil, errors.New("a signed envelope: give the signer's public key with -pub")
	case rec.Envelope == nil && pub != nil:
		return nil, errors.New("not signed, and -pub asks for a signature")
	case rec.Envelope != nil:
		return provenance.Open(rec.Envelope, pub)
	}
	return rec.Statement, nil
}

// reportProvenance prints what was found of one provenance file: its
// problems, one line each (every file named, with -json).
func reportProvenance(env *Env, o *provenanceVerifyOptions, name string, found []provenance.Finding, err error) {
	if o.json {
		rec := struct {
			File     string               `json:"file"`
			Error    string               `json:"error,omitempty"`
			Findings []provenance.Finding `json:"findings,omitempty"`
		}{File: name, Findings: found}
		if err != nil {
			rec.Error = err.Error()
		}
		writeJSONLine(env.Stdout, rec)
		return
	}
	if err != nil {
		fmt.Fprintf(env.Stdout, "%s: %s\n", untrusted.Escape(name), untrusted.Lines(err.Error()))
		return
	}
	for _, fd := range found {
		if fd.Problem == "" {
			continue
		}
		line := fmt.Sprintf("%s: %s %s: %s", untrusted.Escape(name), fd.Role, untrusted.Escape(fd.Name), untrusted.Lines(fd.Problem))
		if fd.Found != "" {
			line += fmt.Sprintf(" (recorded %s, found %s)", fd.Recorded, fd.Found)
		}
		fmt.Fprintln(env.Stdout, line)
	}
}
