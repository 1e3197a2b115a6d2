package owned

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNotOwned is wrapped by the error of an operation that would replace a
// file voxform did not make.
var ErrNotOwned = errors.New("a file voxform did not make is there")

// Root is the manifest directory opened for voxform's own writes.
type Root struct {
	dir  string // absolute, as given
	real string // dir with symbolic links resolved
	root *os.Root
	// stateRel is where the state file really is, relative to real, when a
	// symbolic link places it elsewhere inside the tree ("" otherwise).
	stateRel string

	mu    sync.Mutex
	dirs  map[string]resolved   // Check's answers, by directory
	links map[string]*dirLinks  // by resolved directory ("a/b/")
	syncs map[fileID]*SyncGroup // the syncs of each directory opened, shared
	// outs are OutputDir's checked directory handles, by directory;
	// retired are those replaced since (other outputs may still use
	// them). Close closes both.
	outs    map[string]*Dir
	retired []*Dir
}

// fileID names a file by its device and inode.
type fileID struct{ dev, ino uint64 }

// dirGather is the SyncGroup.Gather of a directory's syncs: outputs
// renamed into one directory a little apart (an apply starts the outputs
// of a directory together) share a sync of it.
const dirGather = 2 * time.Millisecond

// syncGroup returns the SyncGroup of the directory st describes: every
// handle of one directory shares it, so that the outputs renamed into a
// directory while a sync of it runs are made durable by one more sync of
// it, not one each. Each file's content is still synced on its own handle,
// which was open before it was written and so sees its write-back errors.
func (r *Root) syncGroup(st fs.FileInfo) *SyncGroup {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	id := fileID{dev: uint64(sys.Dev), ino: sys.Ino}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.syncs == nil {
		r.syncs = make(map[fileID]*SyncGroup)
	}
	g := r.syncs[id]
	if g == nil {
		g = &SyncGroup{Gather: dirGather}
		r.syncs[id] = g
	}
	return g
}

// resolved is a directory as Check resolved it.
type resolved struct {
	rel string
	err error
}

// Open opens the manifest directory dir.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open manifest directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open manifest directory: %w", err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open manifest directory: %w", err)
	}
	r := &Root{dir: abs, real: real, root: root}
	if st, err := filepath.EvalSymlinks(filepath.Join(real, StateFile)); err == nil {
		if rel, ok := r.inside(st); ok && rel != StateFile {
			r.stateRel = rel
		}
	}
	return r, nil
}

// Close releases the directory handle and those OutputDir kept.
func (r *Root) Close() error {
	r.mu.Lock()
	for _, d := range r.outs {
		d.f.Close()
	}
	for _, d := range r.retired {
		d.f.Close()
	}
	r.outs, r.retired = nil, nil
	r.mu.Unlock()
	return r.root.Close()
}

// Dir is the manifest directory as given to Open.
func (r *Root) Dir() string { return r.dir }

// inside returns the slash-separated path of real below the root.
func (r *Root) inside(real string) (string, bool) {
	rel, err := filepath.Rel(r.real, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// checkResolved applies CheckRel to a path as the file system resolved it,
// and keeps a state file reached through a symbolic link out of reach.
func (r *Root) checkResolved(given, resolved string) error {
	if resolved == "." {
		return &Error{Path: given, Reason: "is the manifest directory itself"}
	}
	if reason := relProblem(resolved); reason != "" {
		return &Error{Path: given, Reason: fmt.Sprintf("resolves to %q, which %s", resolved, strings.TrimPrefix(reason, "is "))}
	}
	if r.stateRel != "" && (resolved == r.stateRel || strings.HasPrefix(resolved, r.stateRel+".")) {
		return &Error{Path: given, Reason: "resolves to the state file " + r.stateRel}
	}
	return nil
}

// Resolve returns rel as the file system resolves it now (symbolic links
// of its existing directories followed), relative to the root, after the
// checks of Check: two spellings of one file resolve alike.
func (r *Root) Resolve(rel string) (string, error) {
	if err := CheckRel(rel); err != nil {
		return "", err
	}
	dir, err := r.resolveDir(rel, path.Dir(rel))
	if err != nil {
		return "", err
	}
	resolved := path.Join(dir, path.Base(rel))
	if err := r.checkResolved(rel, resolved); err != nil {
		return "", err
	}
	return resolved, r.checkNotLink(resolved, rel)
}

// Check reports whether voxform may write, move or delete rel as the file
// system resolves it now: the nearest existing directory on its way is
// opened (a symbolic link leading out of the manifest directory is
// refused), and the resolved path must pass CheckRel. An existing symbolic
// link at rel itself is refused too: voxform never makes one. Directories
// are resolved once per Root: Check is a check before the work; the work
// itself goes through OpenDir, which never trusts an earlier answer.
func (r *Root) Check(rel string) error {
	_, err := r.Resolve(rel)
	return err
}

// resolveDir is dir (of the path given) resolved, relative to the root:
// its nearest existing ancestor as it really is, joined with the rest.
func (r *Root) resolveDir(given, dir string) (string, error) {
	r.mu.Lock()
	res, ok := r.dirs[dir]
	r.mu.Unlock()
	if !ok {
		res.rel, res.err = r.resolveDirUncached(given, dir)
		r.mu.Lock()
		if r.dirs == nil {
			r.dirs = map[string]resolved{}
		}
		r.dirs[dir] = res
		r.mu.Unlock()
	}
	var e *Error
	if res.err != nil && errors.As(res.err, &e) {
		return "", &Error{Path: given, Reason: e.Reason}
	}
	return res.rel, res.err
}

func (r *Root) resolveDirUncached(given, dir string) (string, error) {
	d, err := r.openDir(given, dir)
	if err == nil {
		defer d.Close()
		return d.rel, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || dir == "." {
		return "", err
	}
	parent, err := r.resolveDir(given, path.Dir(dir))
	if err != nil {
		return "", err
	}
	joined := path.Join(parent, path.Base(dir))
	if err := r.checkResolved(given, joined); err != nil {
		return "", err
	}
	return joined, nil
}

// checkNotLink refuses a symbolic link at resolved (relative to the root).
func (r *Root) checkNotLink(resolved, given string) error {
	if r.isLink(resolved) {
		return &Error{Path: given, Reason: "is a symbolic link; voxform only writes files it makes"}
	}
	return nil
}

// listFrom is how many files of one directory are checked one by one
// before the directory is listed once instead: a check of 100,000 outputs
// in a few directories made 100,000 lstat calls.
const listFrom = 8

// dirLinks is what Check knows of the symbolic links of a directory.
type dirLinks struct {
	asked  int
	listed bool
	links  map[string]bool // when listed: the names that are symbolic links
}

// isLink reports whether rel is a symbolic link now: by lstat, or from a
// listing of its directory once several of its files were asked about.
func (r *Root) isLink(rel string) bool {
	dir, name := path.Split(rel)
	r.mu.Lock()
	if r.links == nil {
		r.links = map[string]*dirLinks{}
	}
	dl := r.links[dir]
	if dl == nil {
		dl = &dirLinks{}
		r.links[dir] = dl
	}
	if !dl.listed {
		if dl.asked++; dl.asked == listFrom {
			dl.links, dl.listed = r.listLinks(dir) // not again when it cannot be listed
		}
	}
	listed, link := dl.listed, dl.links[name]
	r.mu.Unlock()
	if listed {
		return link
	}
	st, err := os.Lstat(filepath.Join(r.real, filepath.FromSlash(rel)))
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// listLinks lists the directory dir (relative to the real root, "" for
// itself) and returns the names of its symbolic links; ok is false when it
// cannot be listed (a directory not made yet holds no link).
func (r *Root) listLinks(dir string) (map[string]bool, bool) {
	d := strings.TrimSuffix(dir, "/")
	if d == "" {
		d = "."
	}
	// Not through r.root: a directory opened there lists its entries
	// with an lstat each (five times slower). This is a check before the
	// work; the work goes through OpenDir.
	f, err := os.Open(filepath.Join(r.real, filepath.FromSlash(d)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	links, err := linksIn(f)
	return links, err == nil
}

// OpenDir opens the directory that holds rel, creating it first when
// create is set, and checks where it really is. Operations on the returned
// Dir act on that directory whatever happens to the path afterwards.
func (r *Root) OpenDir(rel string, create bool) (*Dir, error) {
	if err := CheckRel(rel); err != nil {
		return nil, err
	}
	dir := path.Dir(rel)
	if create && dir != "." {
		if err := r.root.MkdirAll(dir, 0o755); err != nil {
			return nil, r.pathError(rel, "create directory", err)
		}
	}
	d, err := r.openDir(rel, dir)
	if err != nil {
		return nil, err
	}
	if err := r.checkResolved(rel, path.Join(d.rel, path.Base(rel))); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// maxOutputDirs bounds the directory handles OutputDir keeps open, and
// those it retires: past it, outputs get OpenDir's handle of their own.
const maxOutputDirs = 256

// OutputDir is OpenDir(rel, true) for the outputs of one apply, which
// write thousands of files into a few directories: the directory's checked
// handle is kept until Close and used again for its next output while the
// kernel still places it where it was checked (one readlink of its
// descriptor). A directory moved, replaced or removed meanwhile gets
// OpenDir's full checks again: a symbolic link swapped in is refused, a
// removed directory is made again. Closing the Dir returned leaves the
// kept handle open.
func (r *Root) OutputDir(rel string) (*Dir, error) {
	if err := CheckRel(rel); err != nil {
		return nil, err
	}
	dir := path.Dir(rel)
	if d := r.keptDir(dir); d != nil {
		if err := r.checkResolved(rel, path.Join(d.rel, path.Base(rel))); err != nil {
			d.Close()
			return nil, err
		}
		return d, nil
	}
	d, err := r.OpenDir(rel, true)
	if err != nil {
		return nil, err
	}
	return r.keep(dir, d), nil
}

// keptDir is a use of the handle kept for dir, or nil when there is none
// or it is no longer where it was checked.
func (r *Root) keptDir(dir string) *Dir {
	if !kernelPaths {
		return nil
	}
	r.mu.Lock()
	d := r.outs[dir]
	r.mu.Unlock()
	if d == nil {
		return nil
	}
	// A directory removed since reads "... (deleted)": made again by
	// OpenDir, as one removed before it was first opened.
	if real, err := realPath(d.f, ""); err != nil || real != d.real || strings.HasSuffix(real, " (deleted)") {
		return nil
	}
	return d.use()
}

// keep keeps d, just opened and checked, as the handle of dir, retiring
// the one it replaces, and returns a use of it (d itself when no more are
// kept).
func (r *Root) keep(dir string, d *Dir) *Dir {
	if !kernelPaths {
		return d
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.outs[dir]
	if (!ok && len(r.outs) >= maxOutputDirs) || (ok && len(r.retired) >= maxOutputDirs) {
		return d
	}
	if ok {
		r.retired = append(r.retired, old)
	}
	if r.outs == nil {
		r.outs = map[string]*Dir{}
	}
	r.outs[dir] = d
	return d.use()
}

// openDir opens dir (of the path given, for messages) through the root
// handle and finds where it really is.
func (r *Root) openDir(given, dir string) (*Dir, error) {
	f, err := r.root.Open(dir)
	if err != nil {
		return nil, r.pathError(given, "open directory", err)
	}
	st, err := f.Stat()
	if err != nil || !st.IsDir() {
		f.Close()
		return nil, &Error{Path: given, Reason: fmt.Sprintf("has %q on its way, which is not a directory", dir)}
	}
	real, err := realPath(f, filepath.Join(r.real, filepath.FromSlash(dir)))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	rel, ok := r.inside(real)
	if !ok {
		f.Close()
		return nil, &Error{Path: given, Reason: "leads outside the manifest directory through a symbolic link"}
	}
	if rel != "." {
		if err := r.checkResolved(given, rel); err != nil {
			f.Close()
			return nil, err
		}
	}
	d := &Dir{f: f, fd: int(f.Fd()), rel: rel, real: real}
	d.group = r.syncGroup(st)
	return d, nil
}

// pathError turns an os.Root refusal into a plain statement.
func (r *Root) pathError(given, op string, err error) error {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return &Error{Path: given, Reason: "leads outside the manifest directory through a symbolic link"}
	}
	return fmt.Errorf("%s for %s: %w", op, given, err)
}

// Rename moves the file from to the path to, both relative to the root.
// Unless replace is set, an existing file at to is left alone and the
// error wraps ErrNotOwned (fs.ErrExist).
func (r *Root) Rename(from, to string, replace bool) error {
	src, err := r.OpenDir(from, false)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := r.OpenDir(to, true)
	if err != nil {
		return err
	}
	defer dst.Close()
	if err := rename(src.fd, path.Base(from), dst.fd, path.Base(to), replace); err != nil {
		return opError("move "+from+" to "+to, to, err)
	}
	dst.changed()
	src.changed()
	if err := dst.Sync(); err != nil {
		return err
	}
	return src.Sync()
}

// SyncDir makes the entries of the directory holding rel durable: a
// rename into or out of it that another process made, and may not have
// synced before it died.
func (r *Root) SyncDir(rel string) error {
	d, err := r.OpenDir(rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove deletes the file rel.
func (r *Root) Remove(rel string) error {
	d, err := r.OpenDir(rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Remove(path.Base(rel))
}

// Dir is an open, checked directory of the manifest tree.
type Dir struct {
	f    *os.File
	fd   int
	rel  string // where it really is, relative to the root
	real string // its absolute real path
	// group shares the directory's syncs with every other handle of it
	// (nil: Sync syncs alone); made numbers the last change made through
	// this handle (0: none yet).
	group *SyncGroup
	made  uint64
	// shared is set on a use of a handle Root keeps (OutputDir): the
	// handle stays open when the use is closed.
	shared bool
	// done ends the use's count among the directory's writers (see
	// SyncGroup.Start; nil: not counted).
	done func()
}

// use is a Dir on d's handle, with changes of its own, whose Close
// leaves the handle open. It counts among the directory's writers until
// it is closed, so that a sync of the directory waits for the other
// outputs being written into it (SyncGroup.Gather).
func (d *Dir) use() *Dir {
	u := &Dir{f: d.f, fd: d.fd, rel: d.rel, real: d.real, group: d.group, shared: true}
	if d.group != nil {
		u.done = d.group.Start()
	}
	return u
}

// Close releases the handle (a use of a kept handle: nothing but its
// count among the directory's writers).
func (d *Dir) Close() error {
	if d.shared {
		if d.done != nil {
			d.done()
		}
		return nil
	}
	return d.f.Close()
}

// Path is the current absolute path of name in d (for reading and messages).
func (d *Dir) Path(name string) string { return filepath.Join(d.real, name) }

// CreateTemp creates a new temporary file for name in d (named
// TempPrefix(name) plus a random suffix), readable and writable by the
// owner only.
func (d *Dir) CreateTemp(name string) (*os.File, error) {
	f, _, err := createTemp(d.fd, d.real, name)
	if err != nil {
		return nil, fmt.Errorf("create temporary file in %s: %w", d.rel, err)
	}
	return f, nil
}

// Commit renames tmp to name within d. Unless replace is set, an existing
// file at name is left alone and the error wraps ErrNotOwned.
func (d *Dir) Commit(tmp, name string, replace bool) error {
	if err := rename(d.fd, tmp, d.fd, name, replace); err != nil {
		return opError("rename into place", path.Join(d.rel, name), err)
	}
	d.changed()
	return nil
}

// changed counts a change made in d for Sync.
func (d *Dir) changed() {
	if d.group != nil {
		d.made = d.group.Made()
	}
}

// Remove unlinks name in d; a name already gone is not an error.
func (d *Dir) Remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("delete %s: %w", path.Join(d.rel, name), err)
	}
	d.changed()
	return nil
}

// Open opens name in d for reading, refusing a symbolic link.
func (d *Dir) Open(name string) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path.Join(d.rel, name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.real, name)), nil
}

// Writable reports whether files can be made in d.
func (d *Dir) Writable() error {
	return unix.Faccessat(d.fd, ".", unix.W_OK, 0)
}

// ReadDir lists d.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Sync makes renames and unlinks in d durable. Handles of one directory
// share its syncs (Root.syncGroup): a sync that starts after this
// handle's last change covers it, whichever handle runs it.
func (d *Dir) Sync() error {
	if d.group == nil {
		return d.syncAlone()
	}
	n := d.made
	if n == 0 { // nothing counted through this handle: whatever was made before now
		n = d.group.Made()
	}
	return d.group.Wait(n, d.syncAlone)
}

// syncAlone fsyncs d.
func (d *Dir) syncAlone() error {
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", d.rel, err)
	}
	return nil
}

// rename moves oldName in oldDir to newName in newDir; without replace an
// existing destination is refused.
func rename(oldDir int, oldName string, newDir int, newName string, replace bool) error {
	if replace {
		return unix.Renameat(oldDir, oldName, newDir, newName)
	}
	return renameNoReplace(oldDir, oldName, newDir, newName)
}

func opError(op, target string, err error) error {
	if errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("%s: refusing to replace %s: %w", op, target, ErrNotOwned)
	}
	if errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%s: %w", op, fs.ErrNotExist)
	}
	return fmt.Errorf("%s: %w", op, err)
}
