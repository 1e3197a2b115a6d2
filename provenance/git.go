package provenance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/voxform/voxform/owned"
)

// Bounds of what ReadGitHead reads of a repository.
const (
	// maxGitSmallFile bounds HEAD, a loose ref, a .git file and commondir.
	maxGitSmallFile = 4 << 10
	// MaxPackedRefsBytes bounds packed-refs, read line by line.
	MaxPackedRefsBytes = 64 << 20
	// maxSymrefDepth bounds a chain of symbolic refs.
	maxSymrefDepth = 5
)

// GitHead is the commit checked out in the work tree holding a directory.
type GitHead struct {
	// Commit is the commit id, lowercase hex (SHA-1 or SHA-256).
	Commit string
	// Ref is the branch HEAD names ("refs/heads/main"); empty for a
	// detached HEAD.
	Ref string
	// Dir is the directory relative to the work tree's top, slash
	// separated ("." for the top).
	Dir string
}

var (
	hexCommit = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
	refName   = regexp.MustCompile(`^refs/[A-Za-z0-9._/+-]+$`)
)

// ReadGitHead finds the git work tree holding dir (a .git directory, or a
// .git file pointing at a worktree's directory, in dir or a parent) and
// reads the commit its HEAD names: HEAD, the loose ref it names, else
// packed-refs, as git itself resolves them. ok is false outside a
// repository and for a branch with no commit yet. No git binary is run;
// every file read is bounded and a ref that is not a plain refs/ name is
// refused, so that a hostile HEAD cannot make it read elsewhere.
func ReadGitHead(dir string) (head GitHead, ok bool, err error) {
	top, gitDir, found, err := findGitDir(dir)
	if err != nil || !found {
		return GitHead{}, false, err
	}
	common, err := commonDir(gitDir)
	if err != nil {
		return GitHead{}, false, err
	}
	if rel, err := filepath.Rel(top, dir); err == nil {
		head.Dir = filepath.ToSlash(rel)
	}
	target, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return GitHead{}, false, fmt.Errorf("read git HEAD: %w", err)
	}
	head.Commit, head.Ref, ok, err = followRef(gitDir, common, strings.TrimSpace(string(target)))
	if err != nil || !ok {
		return GitHead{}, false, err
	}
	return head, true, nil
}

// commonDir is the directory holding the refs shared by the worktrees of
// gitDir (its commondir file's), gitDir itself for the main worktree.
func commonDir(gitDir string) (string, error) {
	b, err := readSmall(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, fs.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("read git commondir: %w", err)
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return c, nil
}

// followRef resolves ref, HEAD's content (a commit id or "ref: NAME"),
// to a commit, through at most maxSymrefDepth symbolic refs; branch is
// the ref HEAD names.
func followRef(gitDir, common, ref string) (commit, branch string, ok bool, err error) {
	for depth := 0; ; depth++ {
		name, symbolic := strings.CutPrefix(ref, "ref: ")
		if !symbolic {
			if !hexCommit.MatchString(ref) {
				return "", "", false, fmt.Errorf("read git HEAD: %q is not a commit id", clip(ref))
			}
			return ref, branch, true, nil
		}
		if depth >= maxSymrefDepth {
			return "", "", false, fmt.Errorf("read git HEAD: more than %d symbolic refs in a row", maxSymrefDepth)
		}
		name = strings.TrimSpace(name)
		if !refName.MatchString(name) || strings.Contains(name, "..") || strings.Contains(name, "//") {
			return "", "", false, fmt.Errorf("read git HEAD: %q is not a ref name", clip(name))
		}
		if depth == 0 {
			branch = name
		}
		next, found, err := resolveRef(gitDir, common, name)
		if err != nil || !found {
			return "", "", false, err
		}
		ref = next
	}
}

// findGitDir walks up from dir to the first directory holding .git.
func findGitDir(dir string) (top, gitDir string, found bool, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", "", false, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		st, err := os.Lstat(p)
		switch {
		case err == nil && st.IsDir():
			return d, p, true, nil
		case err == nil && st.Mode().IsRegular():
			g, err := gitFile(p)
			return d, g, err == nil, err
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", "", false, fmt.Errorf("find git repository: %w", err)
		}
		if filepath.Dir(d) == d {
			return "", "", false, nil
		}
	}
}

// gitFile reads a .git file ("gitdir: PATH", a linked worktree's or a
// submodule's).
func gitFile(p string) (string, error) {
	b, err := readSmall(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || g == "" {
		return "", fmt.Errorf("read %s: not a \"gitdir: PATH\" file", p)
	}
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	return g, nil
}

// resolveRef reads the ref name: a loose ref (the worktree's own, then
// the common directory's), else packed-refs. Its content is a commit id
// or "ref: NAME".
func resolveRef(gitDir, common, name string) (string, bool, error) {
	for _, d := range []string{gitDir, common} {
		b, err := readSmall(filepath.Join(d, filepath.FromSlash(name)))
		if err == nil {
			return strings.TrimSpace(string(b)), true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotRegular) {
			return "", false, fmt.Errorf("read git ref %s: %w", name, err)
		}
	}
	return packedRef(filepath.Join(common, "packed-refs"), name)
}

// packedRef finds name in packed-refs, reading at most MaxPackedRefsBytes.
func packedRef(path, name string) (string, bool, error) {
	f, err := owned.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read git packed-refs: %w", err)
	}
	defer f.Close()
	lr := &io.LimitedReader{R: f, N: MaxPackedRefsBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 4096), maxGitSmallFile)
	for sc.Scan() {
		line := sc.Text()
		if id, ref, ok := strings.Cut(line, " "); ok && ref == name && hexCommit.MatchString(id) {
			return id, true, nil
		}
	}
	if lr.N <= 0 {
		return "", false, fmt.Errorf("read git packed-refs: larger than %s bytes (MaxPackedRefsBytes)", thousands(MaxPackedRefsBytes))
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("read git packed-refs: %w", err)
	}
	return "", false, nil
}

var errNotRegular = errors.New("not a regular file")

// readSmall reads a regular file of at most maxGitSmallFile bytes.
func readSmall(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := owned.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGitSmallFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxGitSmallFile {
		return nil, fmt.Errorf("%s: larger than %s bytes, more than git writes there", path, thousands(maxGitSmallFile))
	}
	return b, nil
}

// clip is s cut to 80 bytes for an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
