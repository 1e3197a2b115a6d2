package provenance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/voxform/voxform/owned"
)

// Finding is what VerifyFiles found of one file a statement names.
type Finding struct {
	// Role is "subject" or "dependency".
	Role string `json:"role"`
	Name string `json:"name"`
	// Problem is "" (the file matches), "missing", "modified" or why the
	// file was not read (Refused).
	Problem  string `json:"problem,omitempty"`
	Recorded string `json:"recorded_sha256"`
	Found    string `json:"found_sha256,omitempty"`
}

// Problems of a Finding.
const (
	Missing  = "missing"
	Modified = "modified"
)

// Files says where VerifyFiles reads the files a statement names.
type Files struct {
	// Dir is the manifest directory: relative names are inside it.
	Dir string
	// InputDirs are the directories outside Dir whose files a statement
	// may name by absolute path (a transcription's input_dirs:); any
	// other absolute name, or one through "..", is refused unread.
	InputDirs []string
}

// VerifyFiles hashes every subject and every dependency with a sha256
// digest and a name, and returns one finding for each, in the
// statement's order. Dependencies without a file (a URL, the git commit)
// are not checked. A name the statement may not make it read (see Files)
// is a finding too, its Problem saying why, never a file read.
func VerifyFiles(ctx context.Context, s *Statement, where Files) ([]Finding, error) {
	root, err := owned.Open(where.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []Finding
	check := func(role string, d Descriptor) error {
		want := d.Digest[SHA256]
		if d.Name == "" || want == "" {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		f := Finding{Role: role, Name: d.Name, Recorded: want}
		f.Found, f.Problem = hashNamed(ctx, root, where, d.Name)
		if f.Problem == "" && f.Found != want {
			f.Problem = Modified
		}
		out = append(out, f)
		return nil
	}
	for _, d := range s.Subject {
		if err := check("subject", d); err != nil {
			return nil, err
		}
	}
	for _, d := range s.Predicate.BuildDefinition.ResolvedDependencies {
		if err := check("dependency", d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hashNamed hashes the file name names, or says why it is not read.
func hashNamed(ctx context.Context, root *owned.Root, where Files, name string) (sum, problem string) {
	if !filepath.IsLocal(filepath.FromSlash(name)) && !inInputDirs(where, name) {
		return "", "refused: outside the manifest directory and the directories named for inputs (-input-dir)"
	}
	f, err := root.OpenInputWithin(filepath.FromSlash(name), where.InputDirs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", Missing
	}
	if err != nil {
		return "", "refused: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		return "", fmt.Sprintf("not read: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// inInputDirs reports whether name, absolute or through ".." from the
// manifest directory, really lies (links resolved) in one of the input
// directories.
func inInputDirs(where Files, name string) bool {
	p := filepath.FromSlash(name)
	if !filepath.IsAbs(p) {
		p = filepath.Join(where.Dir, p)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return false
	}
	var dirs []string
	for _, d := range where.InputDirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			dirs = append(dirs, r)
		}
	}
	return owned.Within(real, dirs...)
}

// ctxReader stops reading once ctx is done: a huge file is not hashed to
// its end after an interrupt.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
