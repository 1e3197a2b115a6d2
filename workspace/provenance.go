package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/provenance"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// Attestation is the provenance statement of one recorded output.
type Attestation struct {
	Address string
	// Output is the output's path, relative to the manifest directory.
	Output    string
	Statement *provenance.Statement
	// Payload is Statement encoded (provenance.Marshal, indented),
	// checked to hold no secret: what is written, or signed.
	Payload []byte
}

// ProvenanceOptions say which resources Provenance attests, and what no
// statement may hold.
type ProvenanceOptions struct {
	// Addresses are the resources to attest; none: every recorded one.
	Addresses []string
	// Secrets are the values no statement may hold, in any form
	// speechapi.KeyForms knows, by the name to give in an error (the
	// variable's): the API key, the state backend's connection string
	// and its password, storage credentials.
	Secrets map[string]string
}

// minSecret is the shortest secret a statement is checked for: a value of
// a few bytes would match the text of any statement.
const minSecret = 8

// Provenance builds one statement for every output of the resources opts
// names (every recorded one by default), each from the state and m: the
// recorded output and its hash, the exact recorded request, the service's
// ids, and the inputs the manifest declares for it now, each hashed now.
//
// Those inputs are the ones the output was made from only when the
// resource is in sync: the state records it complete, the manifest still
// declares it with the fingerprint recorded (the same request from the
// same input contents), with the same outputs, and every output is on
// disk as recorded. A resource that is not (one plan would change) is
// refused, all of them named: nothing is attested then.
func (w *Workspace) Provenance(ctx context.Context, m *manifest.Manifest, st *state.File, opts ProvenanceOptions) ([]Attestation, error) {
	addrs, err := provenanceAddresses(st, opts.Addresses)
	if err != nil {
		return nil, err
	}
	desired, err := w.provenanceDesired(ctx, m)
	if err != nil {
		return nil, err
	}
	root, err := owned.Open(w.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var pending []string
	for _, a := range addrs {
		if why := outOfSync(root, st.Resources[a], desired[a]); why != "" {
			pending = append(pending, a+" ("+why+")")
		}
	}
	if len(pending) > 0 {
		return nil, advise(fmt.Errorf("provenance: %d resource(s) not as recorded: %s", len(pending), strings.Join(pending, "; ")),
			"'voxform plan' shows what would change and 'voxform apply' makes it so; or name only the resources to attest")
	}
	b := &attester{ws: w, m: m, st: st, root: root, secrets: opts.Secrets}
	if b.git, b.hasGit, err = provenance.ReadGitHead(w.Dir); err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	var out []Attestation
	for _, a := range addrs {
		atts, err := b.attest(ctx, a, desired[a])
		if err != nil {
			return nil, err
		}
		out = append(out, atts...)
	}
	return out, nil
}

// provenanceAddresses are the addresses asked, each recorded, or every
// recorded one.
func provenanceAddresses(st *state.File, asked []string) ([]string, error) {
	if len(asked) == 0 {
		return st.Addresses(), nil
	}
	var out []string
	for _, a := range asked {
		if st.Resources[a] == nil {
			return nil, advise(fmt.Errorf("provenance: %s is not recorded in the state", a), "'voxform state list' lists the recorded resources")
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out, nil
}

// provenanceDesired builds the desired resources of m by address, the
// inputs hashed through the hash cache as a plan hashes them.
func (w *Workspace) provenanceDesired(ctx context.Context, m *manifest.Manifest) (map[string]*planner.Desired, error) {
	ds, err := w.build(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	out := make(map[string]*planner.Desired, len(ds))
	for _, d := range ds {
		out[d.Address] = d
	}
	return out, nil
}

// outOfSync says why r is not what d would make now ("" when it is).
func outOfSync(root *owned.Root, r *state.Resource, d *planner.Desired) string {
	switch {
	case d == nil:
		return "no longer declared in the manifest"
	case r.Status != state.StatusComplete:
		return "status " + r.Status
	case r.Fingerprint != d.Fingerprint:
		return "its request or an input changed since it was made"
	case len(r.Outputs) == 0:
		return "no output recorded"
	}
	want := make([]string, 0, len(d.Outputs))
	for _, o := range d.Outputs {
		want = append(want, o.Path)
	}
	got := make([]string, 0, len(r.Outputs))
	for _, o := range r.Outputs {
		got = append(got, o.Path)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return "the manifest declares other outputs than those recorded"
	}
	for _, o := range r.Outputs {
		sum, err := hashInput(root, o.Path, nil)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "output " + o.Path + " missing"
		case err != nil:
			return "output " + err.Error()
		case sum != o.SHA256:
			return "output " + o.Path + " modified"
		}
	}
	return ""
}

// hashInput hashes the file name (relative to the root, or absolute in
// one of dirs) as an input is read: never through a link out of them.
func hashInput(root *owned.Root, name string, dirs []string) (string, error) {
	f, err := root.OpenInputWithin(filepath.FromSlash(name), dirs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return hashReader(name, f)
}

func hashReader(name string, r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("hash %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteAttestation writes the file b (a statement or an envelope) of the
// output rel under dir (relative to the manifest directory when not
// absolute), at dir/rel plus suffix, atomically. It never replaces
// anything but a provenance file, nor writes one of voxform's own files,
// an output, or through a link out of the manifest directory.
func (w *Workspace) WriteAttestation(st *state.File, dir, rel, suffix string, b []byte) (string, error) {
	path := filepath.Join(w.path(dir), filepath.FromSlash(rel)+suffix)
	outputOf := func(p string) string {
		for _, a := range st.Addresses() {
			r := st.Resources[a]
			if slices.ContainsFunc(r.Outputs, func(o state.Output) bool { return o.Path == p }) || r.Details().Source != nil && r.Details().Source.Path == p {
				return a
			}
		}
		return ""
	}
	isRecord := func(r io.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, provenance.MaxFileBytes+1))
		if err != nil {
			return err
		}
		_, err = provenance.ReadRecord(b)
		return err
	}
	if err := w.checkNewDirs(path); err != nil {
		return "", advise(fmt.Errorf("provenance -out %s: %w", dir, err), "write the statements to another directory with -out")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("provenance -out %s: %w", dir, err)
	}
	if err := w.checkReplace(path, outputOf, "provenance file", isRecord); err != nil {
		return "", advise(fmt.Errorf("provenance -out %s: %w", dir, err), "write the statements to another directory with -out")
	}
	return path, owned.WriteFile(path, 0o644, func(wr io.Writer) error {
		_, err := io.Copy(wr, bytes.NewReader(b))
		return err
	})
}

// checkNewDirs refuses, before any directory is made for the file path,
// a path spelled inside the manifest directory that names one of
// voxform's or version control's files, or whose deepest existing
// directory a symbolic link leads out of it.
func (w *Workspace) checkNewDirs(path string) error {
	rel, err := filepath.Rel(w.Dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil // an outside place named by its own path
	}
	if err := owned.CheckRel(filepath.ToSlash(rel)); err != nil {
		return err
	}
	d := filepath.Dir(path)
	for {
		if _, err := os.Lstat(d); err == nil || d == w.Dir {
			break
		}
		d = filepath.Dir(d)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return err
	}
	if top, err := filepath.EvalSymlinks(w.Dir); err == nil && !owned.Within(real, top) {
		return fmt.Errorf("%s leads outside the manifest directory through a symbolic link; name the outside directory by its own path", d)
	}
	return nil
}

// checkSecrets refuses b when it holds a form of one of the secrets,
// naming the variable, never the value.
func checkSecrets(addr string, b []byte, secrets map[string]string) error {
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := secrets[n]
		if len(v) < minSecret {
			continue
		}
		for _, f := range speechapi.KeyForms(v) {
			if bytes.Contains(b, []byte(f)) {
				return advise(fmt.Errorf("provenance %s: the statement would hold the value of %s; nothing was written", addr, n),
					"a secret reached the recorded request or the service's ids; remove it from the manifest and apply again")
			}
		}
	}
	return nil
}

// build builds the desired resources of m as a plan does (planner.Build
// with the workspace's Encoder), its inputs hashed through the hash
// cache, all at once.
func (w *Workspace) build(ctx context.Context, m *manifest.Manifest) ([]*planner.Desired, error) {
	hc := state.OpenHashCache(w.Dir)
	hashes, err := hc.HashAll(ctx, planner.InputFiles(m))
	if err != nil {
		return nil, err
	}
	hash := func(p string) (state.FileHash, error) {
		if h, ok := hashes[p]; ok {
			return h, nil
		}
		return hc.Hash(p)
	}
	return planner.Build(m, hash)
}
