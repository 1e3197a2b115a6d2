package state

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// The decoded-state snapshot is a local cache in .voxform/: the state of the
// last read, in gob. Decoding it takes a fraction of the JSON decode of a
// large state, so a plan with nothing changed stays fast. Its own checksum
// guards against a torn file; anything amiss falls back to the JSON.
//
// It is keyed to this copy of the state file, not only to its bytes (see
// snapshotKey): a repository could commit a benign state file beside a
// hostile snapshot keyed to its SHA-256, and what reviewers read would not
// be what voxform used. A snapshot made elsewhere, committed or copied,
// never matches, and what it holds is checked as a decoded file is.

const snapshotName = "state.snapshot"

// snapshotBody is the state a snapshot holds, in gob. Its N resources
// follow it in the file in blocks of at most snapshotChunk (see
// snapshot_codec.go): read back, one gob message of 100,000 took twice its
// size in copies before it was decoded, and gob made an allocation for
// each string.
type snapshotBody struct {
	Version        int
	Lineage        string
	Serial         int64
	VoxformVersion string
	JobIntents     []JobIntent
	Written        []Written
	MovedTo        *Moved
	N              int
	resources      map[string]*Resource
}

// snapshotChunk is how many resources one block of a snapshot holds.
const snapshotChunk = 1000

// snapshotted is what a snapshot file holds: a value whose body's
// resources follow it.
type snapshotted interface{ body() *snapshotBody }

func (sb *snapshotBody) body() *snapshotBody { return sb }

func (l *Local) snapshotPath() string { return filepath.Join(l.Dir, CacheDirName, snapshotName) }

// snapshotKey is the key of a snapshot of the state file whose content has
// SHA-256 sum and whose stat is st: the content's hash with the file's
// device, inode, size, mtime and ctime. A fresh clone or checkout, or a
// copy, is another inode with another ctime (which its owner cannot set),
// so it misses and the JSON is decoded.
func snapshotKey(sum [32]byte, st *unix.Stat_t) [32]byte {
	b := append([]byte("voxform state snapshot 5\n"), sum[:]...) // 5: resources in blocks of strings and records
	for _, v := range []uint64{uint64(st.Dev), st.Ino, uint64(st.Size),
		uint64(st.Mtim.Sec), uint64(st.Mtim.Nsec), uint64(st.Ctim.Sec), uint64(st.Ctim.Nsec)} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return sha256.Sum256(b)
}

// loadSnapshot returns the state of the snapshot with the given key, if
// .voxform/ holds it (a regular file in a real directory).
func (l *Local) loadSnapshot(key [32]byte) (*File, bool) {
	fh, err := openCacheFile(l.Dir, snapshotName)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	var sb snapshotBody
	if !readSnapshot(fh, key, &sb) {
		return nil, false
	}
	f, ok := sb.file()
	if !ok || f.checkEntries() != nil { // a snapshot is never trusted further than the file
		return nil, false
	}
	return f, true
}

// saveSnapshot stores f under key (see snapshotKey). Failures are ignored:
// it is a cache, and none is kept when .voxform/ is not a real directory.
// It is not fsynced; a torn snapshot fails its checksum and is ignored.
func (l *Local) saveSnapshot(key [32]byte, f *File) {
	sb := snapshotOf(f)
	writeSnapshot(l.Dir, snapshotName, func(*unix.Stat_t) [32]byte { return key }, &sb)
}

// snapshotOf is f as a snapshot holds it.
func snapshotOf(f *File) snapshotBody {
	return snapshotBody{Version: f.Version, Lineage: f.Lineage, Serial: f.Serial, VoxformVersion: f.VoxformVersion,
		JobIntents: f.JobIntents, Written: f.Written, MovedTo: f.MovedTo, N: len(f.Resources), resources: f.Resources}
}

// encodeResources writes the resources of sb after it.
func (sb *snapshotBody) encodeResources(w *bufio.Writer) error {
	var e blockEncoder
	for a, r := range sb.resources {
		raw := r.rawRequest // compact (see compactJSON)
		if r.Request != nil {
			if b, err := marshalNoEscape(r.Request); err == nil {
				raw = b
			}
		}
		if err := e.add(a, r, raw); err != nil {
			return err
		}
		if e.n == snapshotChunk {
			if err := e.flush(w); err != nil {
				return err
			}
		}
	}
	if e.n == 0 {
		return nil
	}
	return e.flush(w)
}

// decodeResources reads the N resources that follow sb from r, which
// holds at most budget bytes more.
func (sb *snapshotBody) decodeResources(r *bufio.Reader, budget int64) bool {
	if sb.N < 0 || int64(sb.N) > budget { // a resource takes bytes
		return false
	}
	sb.resources = make(map[string]*Resource, sb.N)
	d := newBlockDecoder(sb.N, budget)
	for len(sb.resources) < sb.N {
		before := len(sb.resources)
		if d.read(r) != nil || d.records(sb.resources) != nil || len(sb.resources) == before || len(sb.resources) > sb.N {
			return false
		}
	}
	return true
}

// file is the state sb holds, not checked yet (see File.checkEntries).
func (sb *snapshotBody) file() (*File, bool) {
	if sb.Version != FormatVersion || len(sb.resources) != sb.N {
		return nil, false
	}
	return &File{Version: sb.Version, Lineage: sb.Lineage, Serial: sb.Serial, VoxformVersion: sb.VoxformVersion,
		Resources: sb.resources, JobIntents: sb.JobIntents, Written: sb.Written, MovedTo: sb.MovedTo}, true
}

// A snapshot file is its key (32 bytes), the SHA-256 of its body (32
// bytes), then the body, in gob.

// readSnapshot decodes into v the body of the snapshot file fh, if it has
// key and its body matches its checksum. The body is decoded as it is
// read, and used only once the whole of it is found to match: it is never
// held as well as what it decodes to.
func readSnapshot(fh *os.File, key [32]byte, v snapshotted) bool {
	var head [64]byte
	if _, err := io.ReadFull(fh, head[:]); err != nil || !bytes.Equal(head[:32], key[:]) {
		return false
	}
	fi, err := fh.Stat()
	if err != nil || fi.Size() > MaxCacheFileSize {
		return false
	}
	h := sha256.New()
	body := &io.LimitedReader{R: fh, N: MaxCacheFileSize + 1}
	br := bufio.NewReaderSize(io.TeeReader(body, h), 256<<10)
	if gob.NewDecoder(br).Decode(v) != nil || !v.body().decodeResources(br, fi.Size()-int64(len(head))) {
		return false
	}
	_, err = io.Copy(io.Discard, br)
	return err == nil && body.N > 0 && bytes.Equal(h.Sum(nil), head[32:64]) // N == 0: over the limit
}

// writeSnapshot writes v as the snapshot name of dir's .voxform/, under
// the key keyOf gives for the stat of the file written (which a snapshot
// keyed to its own file's inode needs). Failures are ignored: it is a
// cache. It is not fsynced; a torn snapshot fails its checksum.
func writeSnapshot(dir, name string, keyOf func(st *unix.Stat_t) [32]byte, v snapshotted) {
	d, err := openCacheDir(dir, true)
	if err != nil {
		return
	}
	defer d.Close()
	owned.WriteFileAt(d, name, 0o644, false, func(w io.Writer) error {
		f, ok := w.(*os.File)
		if !ok {
			return errors.New("not a file")
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return err
		}
		var head [64]byte
		if _, err := f.Write(head[:]); err != nil {
			return err
		}
		h := sha256.New()
		bw := bufio.NewWriterSize(io.MultiWriter(f, h), 256<<10)
		enc := gob.NewEncoder(bw)
		if err := enc.Encode(v); err != nil {
			return err
		}
		if err := v.body().encodeResources(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		key := keyOf(&st)
		copy(head[:32], key[:])
		h.Sum(head[32:32])
		_, err := f.WriteAt(head[:], 0)
		return err
	})
}

// gob sends no pointer to a zero value: a true peak of 0.00 dBTP or a
// with_denoise: false would come back from a snapshot as absent, and the
// next write of the state would lose them. The types that hold such
// pointers cross a snapshot as their JSON, as the state file holds them.

// GobEncode writes l as its JSON.
func (l *Loudness) GobEncode() ([]byte, error) { return json.Marshal(l) }

// GobDecode reads l from its JSON.
func (l *Loudness) GobDecode(b []byte) error {
	*l = Loudness{}
	return json.Unmarshal(b, l)
}

// GobEncode writes c as its JSON.
func (c *JobIntentConfig) GobEncode() ([]byte, error) { return json.Marshal(c) }

// GobDecode reads c from its JSON.
func (c *JobIntentConfig) GobDecode(b []byte) error {
	*c = JobIntentConfig{}
	return json.Unmarshal(b, c)
}
