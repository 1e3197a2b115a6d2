package state

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A plan reads the whole state, and 100,000 rows of resources are some
// 90 MB to send and decode. So a reader keeps what it read in a snapshot
// in .voxform/ (as the file backend keeps its decoded state), with the
// point it was read at, and the next read fetches only the rows written
// and removed since:
//
//   - every resource row has the transaction that last wrote it (tx, an
//     xid8), every removal a row in removed with its transaction, and the
//     point of a read is the oldest transaction still running when it
//     began (pg_snapshot_xmin): a row the read did not see was written by
//     a transaction at or after that point, so the next read asks for the
//     rows of transactions from there on (some it saw already, read again);
//   - the state's epoch changes when its rows are replaced whole (state
//     migrate) or removals older than keepRemoved are pruned: a snapshot of
//     another epoch, or of another lineage, is not used.
//
// The snapshot file is keyed to its own inode and device as well as to the
// database, schema, workspace, lineage and epoch: a snapshot in a
// repository (committed, or copied from elsewhere) is another inode, so it
// is never used in place of the rows. What it holds is checked as a
// decoded file is.

// pgPoint is where a read of the state stands.
type pgPoint struct {
	Epoch int64
	Xmin  string // pg_snapshot_xmin of the read, in decimal
}

// keepRemoved is how long a removal is kept for the snapshots of readers.
const keepRemoved = 30 * 24 * time.Hour

// pgSnapshotSave is how many rows changed since its snapshot a read
// fetches from which it writes a new snapshot (fewer cost less to read
// again than to save); a read of every row always does.
var pgSnapshotSave = 1000

// testHookPGRead, when set (by tests), is called after each read of the
// resources with how many rows it fetched and whether it read them since a
// snapshot.
var testHookPGRead func(rows int, since bool)

// pgSnapshot is what a snapshot file of the pg backend holds.
type pgSnapshot struct {
	Xmin  string
	State snapshotBody
}

func (s *pgSnapshot) body() *snapshotBody { return &s.State }

// newEpoch is a random epoch.
func newEpoch() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.BigEndian.Uint64(b[:]) >> 1)
}

// snapshotName is the name of the workspace's snapshot file in .voxform/.
func (p *PG) snapshotName() string {
	h := sha256.Sum256([]byte(p.cfg.Schema + "\x00" + p.cfg.Workspace))
	return fmt.Sprintf("pg-%x.snapshot", h[:8])
}

// snapshotKey is the key of the snapshot file whose stat is st, of the
// state of lineage at epoch.
func (p *PG) snapshotKey(st *unix.Stat_t, lineage string, epoch int64) [32]byte {
	b := fmt.Appendf(nil, "voxform pg snapshot 3\n%s\n%s\n%d\n", p.Describe(), lineage, epoch) // 3: resources in blocks of strings and records
	b = binary.BigEndian.AppendUint64(b, uint64(st.Dev))
	b = binary.BigEndian.AppendUint64(b, st.Ino)
	return sha256.Sum256(b)
}

// loadSnapshot returns the snapshot of the state of lineage at epoch, if
// .voxform/ holds it; its resources are checked with the rest of the state
// read (see PG.read).
func (p *PG) loadSnapshot(lineage string, epoch int64) (*File, string, bool) {
	if p.cfg.Dir == "" {
		return nil, "", false
	}
	fh, err := openCacheFile(p.cfg.Dir, p.snapshotName())
	if err != nil {
		return nil, "", false
	}
	defer fh.Close()
	var st unix.Stat_t
	if unix.Fstat(int(fh.Fd()), &st) != nil {
		return nil, "", false
	}
	var snap pgSnapshot
	if !readSnapshot(fh, p.snapshotKey(&st, lineage, epoch), &snap) || snap.State.Lineage != lineage {
		return nil, "", false
	}
	if _, err := strconv.ParseUint(snap.Xmin, 10, 64); err != nil {
		return nil, "", false // not a transaction id: read every row
	}
	f, ok := snap.State.file()
	return f, snap.Xmin, ok
}

// saveSnapshot stores the resources of f, read at at.
func (p *PG) saveSnapshot(f *File, at pgPoint) {
	if p.cfg.Dir == "" {
		return
	}
	snap := pgSnapshot{Xmin: at.Xmin, State: snapshotOf(&File{Version: FormatVersion, Lineage: f.Lineage, Resources: f.Resources})}
	writeSnapshot(p.cfg.Dir, p.snapshotName(), func(st *unix.Stat_t) [32]byte { return p.snapshotKey(st, f.Lineage, at.Epoch) }, &snap)
}

// readResourcesSince reads the resources of f's workspace in tx, read at
// at: those a snapshot holds and the rows changed since it was read, or
// every row. A new snapshot is saved after a read of every row, or of many
// changed.
func (p *PG) readResourcesSince(ctx context.Context, rd *pgRead, f *File, at pgPoint) error {
	q := rowQuery{what: "resource", key: "address", val: "resource", from: p.table("resources") + " WHERE workspace = $1"}
	args := []any{p.cfg.Workspace}
	snap, since, ok := p.loadSnapshot(f.Lineage, at.Epoch)
	if ok {
		f.Resources = snap.Resources
		q.from += " AND tx >= $2::text::xid8"
		args = append(args, since)
	}
	addrs, rs, err := readDecoded(ctx, p, rd, q, args, func(addr string, b []byte) (*Resource, error) {
		r, err := decodeResource(b)
		if err != nil {
			return nil, fmt.Errorf("resource %q: %v", addr, err)
		}
		return r, nil
	})
	if err != nil {
		return err
	}
	for i, a := range addrs {
		f.Resources[a] = rs[i]
	}
	n := len(addrs)
	if ok {
		removed := rowQuery{what: "removal", key: "address", val: "''", from: p.table("removed") + " WHERE workspace = $1 AND tx >= $2::text::xid8"}
		err := p.readRows(ctx, rd, removed, args, func(addr string, _ []byte) error {
			n++
			delete(f.Resources, addr)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if testHookPGRead != nil {
		testHookPGRead(n, ok)
	}
	if len(f.Resources) >= snapshotMinResources && (!ok || n >= pgSnapshotSave) {
		p.saveSnapshot(f, at)
	}
	return nil
}
