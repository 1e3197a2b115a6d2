package state

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// Redaction is how a transcription's outputs were redacted: the policy
// (redact.Policy.String), the detectors' version, and where the
// unredacted transcript JSON is kept, when the manifest asks for it
// (keep_unredacted). The state never holds a word of the transcript: only
// this.
type Redaction struct {
	Policy  string `json:"policy"`
	Version int    `json:"version"`
	// Unredacted is the kept unredacted transcript JSON: a local file
	// below UnredactedDir, owner-readable only, and its SHA-256.
	Unredacted *Kept `json:"unredacted,omitempty"`
}

// Kept is a local file voxform keeps for itself, with its hash.
type Kept struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// UnredactedDir is the directory, relative to the manifest directory,
// where unredacted transcripts are kept: inside voxform's own local
// directory, which the output cache, the report and git never see.
const UnredactedDir = ".voxform/unredacted/"

// MaxPolicyLen bounds a recorded redaction policy.
const MaxPolicyLen = 1024

// UnredactedPath is where the unredacted transcript of the resource at
// address is kept: one file per address, named by the address's hash so
// that no name from the manifest reaches the path.
func UnredactedPath(address string) string {
	sum := sha256.Sum256([]byte(address))
	return UnredactedDir + hex.EncodeToString(sum[:16]) + ".json"
}

// IsUnredactedPath reports whether p is a path UnredactedPath gives: a
// state that names any other file there is refused.
func IsUnredactedPath(p string) bool {
	name, ok := strings.CutPrefix(p, UnredactedDir)
	if !ok {
		return false
	}
	h, ok := strings.CutSuffix(name, ".json")
	if !ok || len(h) != 32 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// Check refuses a redaction record no apply writes: a policy that is not
// a list of kind names, a negative version or count, a kept file with a
// hash that is not one.
func (r *Redaction) Check() error {
	if r == nil {
		return nil
	}
	if len(r.Policy) > MaxPolicyLen || r.Policy == "" || strings.IndexFunc(r.Policy, func(c rune) bool {
		return !(c == ',' || c == '_' || (c >= 'a' && c <= 'z'))
	}) >= 0 {
		return fmt.Errorf("policy: %.80q is not a list of kinds (at most %d bytes)", r.Policy, MaxPolicyLen)
	}
	if r.Version < 0 {
		return fmt.Errorf("version: negative")
	}
	if r.Unredacted != nil && !IsHexHash(r.Unredacted.SHA256) {
		return fmt.Errorf("unredacted.sha256: %.80q is not a SHA-256", r.Unredacted.SHA256)
	}
	return nil
}

// unredactedDir opens .voxform/unredacted/ in the manifest directory dir:
// a real directory, never a link, made owner-only (0700) when missing.
func unredactedDir(dir string, create bool) (*os.File, error) {
	d, err := openCacheDir(dir, create)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	name := strings.TrimSuffix(strings.TrimPrefix(UnredactedDir, CacheDirName+"/"), "/")
	shown := filepath.Join(d.Name(), name)
	for made := false; ; made = true {
		fd, err := unix.Openat(int(d.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), shown), nil
		}
		if !errors.Is(err, unix.ENOENT) || !create || made {
			return nil, fmt.Errorf("open %s (a directory voxform keeps for itself, never a link): %w", shown, err)
		}
		if err := unix.Mkdirat(int(d.Fd()), name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, &fs.PathError{Op: "mkdir", Path: shown, Err: err}
		}
	}
}

// KeepUnredacted writes the unredacted transcript JSON of the resource at
// address (write streams it) to its kept file below UnredactedDir,
// atomically and owner-readable only (0600), and returns the record of it.
func KeepUnredacted(dir, address string, write func(io.Writer) error) (*Kept, error) {
	d, err := unredactedDir(dir, true)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	rel := UnredactedPath(address)
	h := sha256.New()
	err = owned.WriteFileAt(d, path.Base(rel), 0o600, true, func(w io.Writer) error {
		return write(io.MultiWriter(w, h))
	})
	if err != nil {
		return nil, err
	}
	return &Kept{Path: rel, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// OpenUnredacted opens the kept file k records for the resource at
// address, in the manifest directory dir: the address's own path
// (UnredactedPath), a regular file, never through a link. A record
// naming another resource's kept file is not followed.
func OpenUnredacted(dir, address string, k *Kept) (*os.File, error) {
	if k == nil || k.Path != UnredactedPath(address) {
		return nil, fmt.Errorf("no kept unredacted transcript")
	}
	d, err := unredactedDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	name := path.Base(k.Path)
	return openOwn(int(d.Fd()), name, filepath.Join(d.Name(), name), unix.O_RDONLY, 0)
}

// RemoveUnredacted removes the kept file k records for the resource at
// address, if it is there and is the address's own (as OpenUnredacted).
func RemoveUnredacted(dir, address string, k *Kept) error {
	if k == nil || k.Path != UnredactedPath(address) {
		return nil
	}
	d, err := unredactedDir(dir, false)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Unlinkat(int(d.Fd()), path.Base(k.Path), 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.Name(), path.Base(k.Path)), Err: err}
	}
	return nil
}

// unredactedTempPrefix starts the names of private scratch files in
// UnredactedDir: the unredacted transcript while its outputs are written.
const unredactedTempPrefix = ".tmp-"

// UnredactedTemp creates a private scratch file (0600) in UnredactedDir
// of the manifest directory dir, for unredacted text while it is being
// redacted: never beside the outputs, never in the system's temporary
// directory, where a killed apply would leave it for anyone to read.
// SweepUnredactedTemps removes what a killed apply left.
func UnredactedTemp(dir string) (*os.File, error) {
	d, err := unredactedDir(dir, true)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := unredactedTempPrefix + hex.EncodeToString(b[:])
		fd, err := unix.Openat(int(d.Fd()), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "create", Path: filepath.Join(d.Name(), name), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.Name(), name)), nil
	}
	return nil, fmt.Errorf("create a scratch file in %s: no free name", d.Name())
}

// SweepUnredactedTemps removes the scratch files UnredactedTemp made that
// a killed apply left; apply calls it before it starts, under the lock.
func SweepUnredactedTemps(dir string) {
	d, err := unredactedDir(dir, false)
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if strings.HasPrefix(n, unredactedTempPrefix) {
			unix.Unlinkat(int(d.Fd()), n, 0)
		}
	}
}
