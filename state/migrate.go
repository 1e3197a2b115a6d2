package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/user"
	"time"

	"github.com/jackc/pgx/v5"
)

// MovedError reports a state that was migrated to another backend: what
// is left where it was is a copy kept for the record, which no command
// reads or changes as the state.
type MovedError struct {
	Where string // the backend that was read
	To    Moved
}

func (e *MovedError) Error() string {
	return fmt.Sprintf("the state in %s was migrated to %s on %s by %s: use that backend (backend: in the manifest, or VOXFORM_BACKEND)",
		e.Where, e.To.Where, e.To.At.UTC().Format(time.RFC3339), e.To.Who)
}

func (f *File) checkNotMoved(where string) error {
	if f.MovedTo == nil {
		return nil
	}
	return &MovedError{Where: where, To: *f.MovedTo}
}

// migratable is a backend a state can be migrated into and out of.
type migratable interface {
	Backend
	// Kind is "local" or "pg"; Describe names the state for messages.
	Kind() string
	Describe() string
	// readAny reads the state, a moved one included.
	readAny(ctx context.Context) (*File, error)
	// replace writes f as the whole state, under lock.
	replace(ctx context.Context, lock Unlocker, f *File) error
}

// Migrate copies the state of from into to, exactly (lineage, serial,
// resources, job intents, written entries), then leaves in from a copy
// marked as moved (MovedTo), which commands refuse to use as the state.
// Both locks are taken first: it is refused while either is held. It is
// refused when from holds no state or was itself migrated away, and when
// to holds a state that was not migrated away from it. It returns the
// state copied.
func Migrate(ctx context.Context, from, to Backend) (*File, error) {
	src, ok1 := from.(migratable)
	dst, ok2 := to.(migratable)
	if !ok1 || !ok2 {
		return nil, errors.New("state migrate: these backends cannot migrate")
	}
	if src.Describe() == dst.Describe() {
		return nil, fmt.Errorf("state migrate: the state is already in %s", dst.Describe())
	}
	lf, err := from.Lock(ctx, "state migrate")
	if err != nil {
		return nil, err
	}
	defer lf.Unlock()
	lt, err := to.Lock(ctx, "state migrate")
	if err != nil {
		return nil, err
	}
	defer lt.Unlock()
	// Open folds a journal a process that died left, and refuses a moved
	// state.
	rec, err := from.Open(ctx, lf, nil)
	if err != nil {
		return nil, err
	}
	f := rec.Snapshot()
	if err := rec.Close(); err != nil {
		return nil, err
	}
	if f.Lineage == "" {
		return nil, fmt.Errorf("state migrate: %s holds no state", src.Describe())
	}
	there, err := dst.readAny(ctx)
	if err != nil {
		return nil, err
	}
	if there.Lineage != "" && there.MovedTo == nil {
		return nil, fmt.Errorf("state migrate: %s already holds a state (lineage %s, serial %d, %d resources); migrate only into a backend with none, or one this state was migrated away from",
			dst.Describe(), there.Lineage, there.Serial, len(there.Resources))
	}
	if err := dst.replace(ctx, lt, f); err != nil {
		return nil, err
	}
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	left := f.Clone()
	left.MovedTo = &Moved{Backend: dst.Kind(), Where: dst.Describe(), At: time.Now().UTC().Truncate(time.Second), Who: who}
	// The state is in dst now: marking the copy left behind goes on
	// after an interrupt, or two states would be live.
	if err := src.replace(context.WithoutCancel(ctx), lf, left); err != nil {
		return nil, fmt.Errorf("%w (the state is copied to %s; %s still holds it unmarked)", err, dst.Describe(), src.Describe())
	}
	return f, nil
}

// Kind implements migratable.
func (l *Local) Kind() string { return "local" }

// Describe names the state file.
func (l *Local) Describe() string { return "local file " + l.StatePath() }

func (l *Local) readAny(context.Context) (*File, error) {
	f, _, err := l.read()
	return f, err
}

func (l *Local) replace(_ context.Context, lock Unlocker, f *File) error {
	if fl, ok := lock.(*FileLock); !ok || fl.path != l.LockPath() || !fl.held() {
		return errors.New("replace state: the state is not locked")
	}
	if err := l.writeState(f); err != nil {
		return err
	}
	return l.removeJournal()
}

// Kind implements migratable.
func (p *PG) Kind() string { return "pg" }

func (p *PG) readAny(ctx context.Context) (*File, error) {
	ctx, cancel := bound(ctx, pgTimeout, "a read of the state")
	defer cancel()
	pool, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	return p.read(ctx, pool)
}

// replace writes f as the workspace's whole state in one transaction,
// its rows copied in bulk.
func (p *PG) replace(ctx context.Context, lock Unlocker, f *File) error {
	l, ok := lock.(*pgLock)
	if !ok || l.p != p || l.LostErr() != nil {
		return errors.New("replace state: the state is not locked")
	}
	if err := f.checkEntries(); err != nil {
		return err
	}
	ctx, cancel := bound(ctx, pgReplaceTimeout, "writing the state whole")
	defer cancel()
	pool, err := p.connect(ctx)
	if err != nil {
		return err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return p.redact(ctx, "replace state", err)
	}
	defer tx.Rollback(ctx)
	ws := p.cfg.Workspace
	var one int
	if err := tx.QueryRow(ctx, p.fence(), ws, l.info.ID).Scan(&one); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("replace state (%s): %w", p.Describe(), errLockLost)
		}
		return p.redact(ctx, "replace state", err)
	}
	var moved any
	if f.MovedTo != nil {
		b, _ := json.Marshal(f.MovedTo)
		moved = string(b)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM "+p.table("states")+" WHERE workspace = $1", ws); err != nil {
		return p.redact(ctx, "replace state", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO "+p.table("states")+` (workspace, lineage, serial, format_version, voxform_version, moved_to, epoch)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, ws, f.Lineage, f.Serial, f.Version, f.VoxformVersion, moved, newEpoch()); err != nil {
		return p.redact(ctx, "replace state", err)
	}
	rows := make([][]any, 0, len(f.Resources))
	for _, addr := range f.Addresses() {
		r := f.Resources[addr]
		j, err := r.MarshalJSON()
		if err != nil {
			return fmt.Errorf("replace state: %s: %w", addr, err)
		}
		rows = append(rows, []any{ws, addr, r.Kind, r.Status, r.Fingerprint, nullIfEmpty(r.Details().JobID), nullIfEmpty(r.Details().FileID),
			r.BilledCharacters, r.Details().BilledAudioSeconds, r.CreatedAt, r.UpdatedAt, string(j)})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{p.cfg.Schema, "resources"},
		[]string{"workspace", "address", "kind", "status", "fingerprint", "job_id", "file_id",
			"billed_characters", "billed_audio_seconds", "created_at", "updated_at", "resource"},
		pgx.CopyFromRows(rows)); err != nil {
		return p.redact(ctx, "replace state", err)
	}
	for _, in := range f.JobIntents {
		b, _ := json.Marshal(in)
		if _, err := tx.Exec(ctx, "INSERT INTO "+p.table("job_intents")+" (workspace, id, intent) VALUES ($1, $2, $3)", ws, in.ID, string(b)); err != nil {
			return p.redact(ctx, "replace state", err)
		}
	}
	for _, w := range f.Written {
		b, _ := json.Marshal(w)
		if _, err := tx.Exec(ctx, "INSERT INTO "+p.table("written")+" (workspace, path, address, entry) VALUES ($1, $2, $3, $4)", ws, w.Path, w.Address, string(b)); err != nil {
			return p.redact(ctx, "replace state", err)
		}
	}
	return p.redact(ctx, "replace state", tx.Commit(ctx))
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
