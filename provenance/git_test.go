package provenance_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/provenance"
)

const (
	commit1 = "1111111111111111111111111111111111111111"
	commit2 = "2222222222222222222222222222222222222222"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadGitHead: the commit of a loose ref, a packed ref, a detached
// HEAD, a linked worktree (.git file, commondir), from a subdirectory;
// none outside a repository or on a branch with no commit.
func TestReadGitHead(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, ".git/refs/heads/main"), commit1+"\n")
	write(t, filepath.Join(repo, ".git/packed-refs"), "# pack-refs with: peeled fully-peeled sorted\n"+commit2+" refs/heads/old\n^"+commit1+"\n")
	sub := filepath.Join(repo, "voice", "project")
	os.MkdirAll(sub, 0o755)
	h, ok, err := provenance.ReadGitHead(sub)
	if err != nil || !ok || h.Commit != commit1 || h.Ref != "refs/heads/main" || h.Dir != "voice/project" {
		t.Errorf("loose ref: %+v %v %v", h, ok, err)
	}
	write(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/old\n")
	if h, ok, err := provenance.ReadGitHead(repo); err != nil || !ok || h.Commit != commit2 || h.Dir != "." {
		t.Errorf("packed ref: %+v %v %v", h, ok, err)
	}
	write(t, filepath.Join(repo, ".git/HEAD"), commit2+"\n")
	if h, ok, err := provenance.ReadGitHead(repo); err != nil || !ok || h.Commit != commit2 || h.Ref != "" {
		t.Errorf("detached: %+v %v %v", h, ok, err)
	}
	write(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/unborn\n")
	if h, ok, err := provenance.ReadGitHead(repo); err != nil || ok {
		t.Errorf("unborn branch: %+v %v %v", h, ok, err)
	}
	// A linked worktree: its HEAD in .git/worktrees/wt, its refs shared.
	wt := t.TempDir()
	write(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git/worktrees/wt")+"\n")
	write(t, filepath.Join(repo, ".git/worktrees/wt/HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, ".git/worktrees/wt/commondir"), "../..\n")
	if h, ok, err := provenance.ReadGitHead(wt); err != nil || !ok || h.Commit != commit1 {
		t.Errorf("worktree: %+v %v %v", h, ok, err)
	}
	if h, ok, err := provenance.ReadGitHead(t.TempDir()); err != nil || ok {
		t.Errorf("no repository: %+v %v %v", h, ok, err)
	}
}

// TestReadGitHeadRefuses: a hostile or broken HEAD is an error, bounded,
// and never makes it read outside the refs.
func TestReadGitHeadRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		head, want string
		files      map[string]string
	}{
		"escape":     {head: "ref: refs/../../../../etc/passwd", want: "not a ref name"},
		"absolute":   {head: "ref: /etc/passwd", want: "not a ref name"},
		"garbage":    {head: "hello", want: "not a commit id"},
		"huge":       {head: strings.Repeat("a", 5000), want: "larger than 4,096 bytes"},
		"loop":       {head: "ref: refs/heads/a", files: map[string]string{"refs/heads/a": "ref: refs/heads/b", "refs/heads/b": "ref: refs/heads/a"}, want: "symbolic refs in a row"},
		"bad target": {head: "ref: refs/heads/a", files: map[string]string{"refs/heads/a": "zzzz"}, want: "not a commit id"},
	} {
		repo := t.TempDir()
		write(t, filepath.Join(repo, ".git/HEAD"), c.head)
		for p, v := range c.files {
			write(t, filepath.Join(repo, ".git", p), v)
		}
		_, _, err := provenance.ReadGitHead(repo)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	repo := t.TempDir()
	write(t, filepath.Join(repo, ".git"), "not a gitdir line")
	if _, _, err := provenance.ReadGitHead(repo); err == nil || !strings.Contains(err.Error(), "gitdir") {
		t.Errorf("a broken .git file: %v", err)
	}
}

// TestReadGitHeadAgreesWithGit: on real repositories (a commit, a
// branch, packed refs, a linked worktree) it reads what git rev-parse
// HEAD says.
func TestReadGitHeadAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("this test compares with git, which is not installed (scripts/deps.sh installs it)")
	}
	repo := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(bytes.TrimSpace(out))
	}
	git(repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "voxform.yaml"), "version: 1\n")
	git(repo, "add", ".")
	git(repo, "commit", "-qm", "one")
	check := func(what, dir string) {
		t.Helper()
		h, ok, err := provenance.ReadGitHead(dir)
		if want := git(dir, "rev-parse", "HEAD"); err != nil || !ok || h.Commit != want {
			t.Errorf("%s: %+v %v %v, git says %s", what, h, ok, err, want)
		}
	}
	check("loose", repo)
	git(repo, "pack-refs", "--all")
	check("packed", repo)
	git(repo, "commit", "-q", "--allow-empty", "-m", "two")
	check("after a commit", repo)
	wt := filepath.Join(t.TempDir(), "wt")
	git(repo, "worktree", "add", "-q", "-b", "other", wt)
	git(wt, "commit", "-q", "--allow-empty", "-m", "three")
	check("worktree", wt)
	check("main beside it", repo)
}
