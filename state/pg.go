package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/clock"
)

// PGConfig configures the PostgreSQL backend.
type PGConfig struct {
	// ConnString is the connection string (URL or key=value form). It is
	// read from the environment and never printed: errors name Env.
	ConnString string
	// Env is the environment variable ConnString came from.
	Env string
	// Schema holds voxform's tables (default DefaultPGSchema).
	Schema string
	// Workspace names this state among those of the schema (default
	// DefaultPGWorkspace): one project, or one of its environments.
	Workspace string
	// Lease is how long the lock outlives its holder's last heartbeat
	// (default DefaultLease): after a holder's death or the loss of its
	// connection, the lock is free within the lease.
	Lease time.Duration
	// Dir is the manifest directory, whose .voxform/ keeps a snapshot of
	// the state last read, so that a read fetches only the rows changed
	// since (see pgsnapshot.go); empty: none.
	Dir string
}

// Defaults of PGConfig.
const (
	DefaultPGSchema    = "voxform"
	DefaultPGWorkspace = "default"
	DefaultLease       = 15 * time.Second
	// MinLease bounds the lease from below: a heartbeat every third of it
	// must have time to reach the server.
	MinLease = time.Second
	// MaxLease bounds how long a dead holder may keep the lock.
	MaxLease = time.Hour
)

// pgTimeout bounds every operation of the backend on the server but the
// lock's wait, within the caller's context (see bound); a variable for
// tests.
var pgTimeout = 30 * time.Second

// pgReplaceTimeout bounds a state written whole (state migrate), its rows
// copied in bulk.
var pgReplaceTimeout = 10 * pgTimeout

// pgConnectTimeout bounds the making of one connection (the driver's
// ConnectTimeout); a variable for tests.
var pgConnectTimeout = 10 * time.Second

// pgCleanupTimeout bounds what is undone after a failure or an interrupt
// (a lock attempt's advisory lock released, its connection closed).
const pgCleanupTimeout = 5 * time.Second

// heldGrace is how long a held lock is asked for again before Lock
// reports its holder (see Lock).
const heldGrace = time.Second

// maxPGRow bounds one row read back (a resource, an intent, a written
// entry): like a journal line, far above what voxform writes, so that a
// hostile or damaged row cannot take the process's memory.
const maxPGRow = MaxJournalLine

// pgName is what a schema or workspace name may be: short, printable,
// without quotes or control characters.
var pgName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-.]{0,62}$`)

// PG is the PostgreSQL backend: one row per resource in <schema>.resources,
// a header row per workspace in <schema>.states, job intents and written
// entries in their own tables, and the lock as a session advisory lock on
// a connection of its own plus a holder row in <schema>.locks whose lease
// a heartbeat renews. Recording one result is one small transaction,
// whatever the number of resources; readers see every committed result.
type PG struct {
	cfg  PGConfig
	conf *pgxpool.Config

	mu       sync.Mutex // guards pool and migrated
	pool     *pgxpool.Pool
	migrated bool
}

// NewPG checks cfg and returns the backend; it connects on first use.
func NewPG(cfg PGConfig) (*PG, error) {
	if cfg.Env == "" {
		cfg.Env = "the connection string"
	}
	if cfg.Schema == "" {
		cfg.Schema = DefaultPGSchema
	}
	if cfg.Workspace == "" {
		cfg.Workspace = DefaultPGWorkspace
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if err := CheckPGConfig(cfg); err != nil {
		return nil, err
	}
	conf, err := pgxpool.ParseConfig(cfg.ConnString)
	if err != nil {
		// pgx's message may quote the string: say only where it came from.
		return nil, fmt.Errorf("backend pg: %s is not a PostgreSQL connection string (postgres://user@host/db or key=value form)", cfg.Env)
	}
	p := &PG{cfg: cfg, conf: conf}
	if err := p.checkTLS(); err != nil {
		return nil, err
	}
	conf.MaxConns = 8
	conf.ConnConfig.ConnectTimeout = pgConnectTimeout
	conf.ConnConfig.RuntimeParams["application_name"] = "voxform"
	return p, nil
}

// checkTLS refuses, before any connection, a connection string that may
// reach a host other than loopback or a Unix socket without TLS: with
// sslmode disable, allow or prefer (the default, also when PGSSLMODE is
// unset), a server or a man in the middle that refuses TLS and asks for a
// cleartext password receives it, and the state crosses the network
// readable. Every host of the string counts (host=a,b and PGHOST too, as
// pgx resolved them): pgx tries each, and those of sslmode allow and
// prefer once without TLS, as a fallback of its own.
func (p *PG) checkTLS() error {
	c := p.conf.ConnConfig
	tries := append([]*pgconn.FallbackConfig{{Host: c.Host, Port: c.Port, TLSConfig: c.TLSConfig}}, c.Fallbacks...)
	for _, t := range tries {
		if t.TLSConfig != nil {
			continue
		}
		if network, _ := pgconn.NetworkAddress(t.Host, t.Port); network == "unix" || contract.IsLoopback(t.Host) {
			continue
		}
		return fmt.Errorf("backend pg: %s: host %s is not loopback and the connection may go without TLS: add sslmode=verify-full (or verify-ca, require) to the connection string, or the password and the state cross the network readable",
			p.cfg.Env, p.scrub(strconv.Quote(t.Host)))
	}
	return nil
}

// CheckPGConfig checks the names and the lease of cfg (not the connection
// string), with errors naming the field.
func CheckPGConfig(cfg PGConfig) error {
	if cfg.Schema != "" && !pgName.MatchString(cfg.Schema) {
		return fmt.Errorf("backend pg: schema %q: want letters, digits, '_', '-' or '.', at most 63, not starting with a digit", cfg.Schema)
	}
	if cfg.Workspace != "" && !pgName.MatchString(cfg.Workspace) {
		return fmt.Errorf("backend pg: workspace %q: want letters, digits, '_', '-' or '.', at most 63, not starting with a digit", cfg.Workspace)
	}
	if cfg.Lease != 0 && (cfg.Lease < MinLease || cfg.Lease > MaxLease) {
		return fmt.Errorf("backend pg: lease %v: want between %v and %v", cfg.Lease, MinLease, MaxLease)
	}
	return nil
}

// Describe names the state for messages: database, schema and workspace,
// never the password (see scrub: a database name may hold it).
func (p *PG) Describe() string {
	return p.scrub(fmt.Sprintf("pg database %s on %s, schema %s, workspace %s", p.conf.ConnConfig.Database, p.host(), p.cfg.Schema, p.cfg.Workspace))
}

func (p *PG) host() string {
	h := p.conf.ConnConfig.Host
	if strings.HasPrefix(h, "/") {
		return "socket " + h
	}
	return fmt.Sprintf("%s:%d", h, p.conf.ConnConfig.Port)
}

// Config returns the backend's configuration, defaults filled in.
func (p *PG) Config() PGConfig { return p.cfg }

// Close closes the backend's connections (a held lock stays held).
func (p *PG) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pool != nil {
		p.pool.Close()
		p.pool = nil
	}
	return nil
}

// redact wraps an error of the driver or the server with what was being
// done, its text scrubbed. Every error of the backend that holds text the
// driver or the server gave goes through it. An operation that ctx cut
// short (the caller cancelled, or a bound of the backend ran out) unwraps
// to context.Canceled or context.DeadlineExceeded, and says which bound.
func (p *PG) redact(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	e := &PGError{What: what, Where: p.Describe(), Msg: p.scrub(err.Error()), cause: err}
	var lim *limitError
	switch {
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		e.ctxErr = ctx.Err()
		if errors.As(context.Cause(ctx), &lim) {
			e.Msg = lim.Error()
		}
	case errors.Is(err, context.DeadlineExceeded): // the driver's own: ConnectTimeout
		e.ctxErr = context.DeadlineExceeded
		e.Msg = (&limitError{what: "connecting", limit: pgConnectTimeout}).Error()
	}
	return e
}

// limitError is the cause of a context that a bound of the backend ended.
type limitError struct {
	what  string
	limit time.Duration
}

func (e *limitError) Error() string {
	return fmt.Sprintf("no answer within %v, the limit of %s", e.limit, e.what)
}

// cleanup is the context of undoing what an operation on the server began
// (a lock attempt's advisory lock): not cancelled with ctx, since an
// interrupt must not leave it half made, and bounded by pgCleanupTimeout.
func cleanup(ctx context.Context) (context.Context, context.CancelFunc) {
	return bound(context.WithoutCancel(ctx), pgCleanupTimeout, "undoing a failed operation")
}

// bound derives from ctx, the caller's, the context of one operation on
// the server: cancelled with ctx (a Ctrl-C ends it at once), and ended
// after limit, which its error then names (as what: "an operation on the
// database").
func bound(ctx context.Context, limit time.Duration, what string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, limit, &limitError{what: what, limit: limit})
}

// urlUserinfo and passwordSetting find the user information of a URL and
// the password of a key=value connection string in a text.
var (
	urlUserinfo     = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@`)
	passwordSetting = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
)

// scrub is the one home of the pg backend's redaction: it removes from a
// text the password of the connection, wherever it appears (the driver
// echoes the user and the database, and a server the database name, which
// may hold it), as written and URL-escaped, the connection string, and the
// user information of any URL or password= setting. A password of any
// length is removed, even at the cost of a message's readability.
func (p *PG) scrub(s string) string {
	if cs := p.cfg.ConnString; cs != "" {
		s = strings.ReplaceAll(s, cs, "$"+p.cfg.Env)
	}
	if pw := p.conf.ConnConfig.Password; pw != "" {
		for _, v := range []string{pw, url.PathEscape(pw), url.QueryEscape(pw), url.UserPassword("", pw).String()[1:]} {
			s = strings.ReplaceAll(s, v, "xxxxx")
		}
	}
	s = urlUserinfo.ReplaceAllString(s, "${1}xxxxx@")
	return passwordSetting.ReplaceAllString(s, "${1}xxxxx")
}

// PGError is an error of the PostgreSQL backend, its text free of the
// password. It does not unwrap to its cause, whose text may hold it: only
// to the context error that cut the operation short, if one did.
type PGError struct {
	What, Where, Msg string
	cause            error
	ctxErr           error
}

func (e *PGError) Error() string { return fmt.Sprintf("%s (%s): %s", e.What, e.Where, e.Msg) }

// Unwrap returns context.Canceled or context.DeadlineExceeded when the
// operation's context ended it, else nil.
func (e *PGError) Unwrap() error { return e.ctxErr }

// connect returns the pool, creating it and the tables at first use.
func (p *PG) connect(ctx context.Context) (*pgxpool.Pool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pool == nil {
		pool, err := pgxpool.NewWithConfig(ctx, p.conf)
		if err != nil {
			return nil, p.redact(ctx, "connect", err)
		}
		p.pool = pool
	}
	if !p.migrated {
		if err := p.migrate(ctx, p.pool); err != nil {
			return nil, err
		}
		p.migrated = true
	}
	return p.pool, nil
}

// fence is the query every write of a holder starts its transaction
// with ($1 workspace, $2 lock id): it returns no row once the holder row
// is no longer this holder's, and keeps the row from being taken over
// until the transaction ends.
func (p *PG) fence() string {
	return "SELECT 1 FROM " + p.table("locks") + " WHERE workspace = $1 AND id = $2 FOR KEY SHARE"
}

// table is the quoted name of a table of the schema.
func (p *PG) table(name string) string { return pgx.Identifier{p.cfg.Schema, name}.Sanitize() }

// pgDDL makes the tables, or brings them up to pgSchemaVersion.
//
//go:embed pg.sql
var pgDDL string

// pgSchemaVersion is the version of the tables of pg.sql; migrate refuses
// a schema a newer voxform made.
const pgSchemaVersion = 2

// migrate creates the schema and tables if they are missing, one process
// at a time (a transaction-scoped advisory lock per schema).
func (p *PG) migrate(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
},
) error {
	ctx, cancel := bound(ctx, pgTimeout, "creating the tables")
	defer cancel()
	tx, err := db.Begin(ctx)
	if err != nil {
		return p.redact(ctx, "create tables", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey("migrate", p.cfg.Schema)); err != nil {
		return p.redact(ctx, "create tables", err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", p.table("meta")).Scan(&exists); err != nil {
		return p.redact(ctx, "create tables", err)
	}
	if exists {
		var version int
		err := tx.QueryRow(ctx, "SELECT value::int FROM "+p.table("meta")+" WHERE key = 'schema_version'").Scan(&version)
		switch {
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return p.redact(ctx, "create tables", err)
		case version > pgSchemaVersion:
			return fmt.Errorf("backend pg (%s): the tables are of version %d, newer than this voxform's %d: upgrade voxform", p.Describe(), version, pgSchemaVersion)
		case version == pgSchemaVersion:
			return p.redact(ctx, "create tables", tx.Commit(ctx))
		}
	}
	ddl := strings.ReplaceAll(pgDDL, "@schema", pgx.Identifier{p.cfg.Schema}.Sanitize())
	if _, err := tx.Exec(ctx, ddl); err != nil { // no argument: one simple query of every statement
		return p.redact(ctx, "create tables", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO "+p.table("meta")+" VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
		strconv.Itoa(pgSchemaVersion)); err != nil {
		return p.redact(ctx, "create tables", err)
	}
	return p.redact(ctx, "create tables", tx.Commit(ctx))
}

// lockKey is the advisory lock key of a (kind, schema, workspace): a hash,
// so that every schema and workspace has its own (Terraform's pg backend
// derives one that collides across schemas).
func lockKey(parts ...string) int64 {
	h := sha256.Sum256([]byte("voxform\x00" + strings.Join(parts, "\x00")))
	return int64(binary.BigEndian.Uint64(h[:8]))
}

// Read implements Backend: the workspace's state, read in one snapshot of
// the database. A workspace with no state (or tables not made yet) is an
// empty File.
func (p *PG) Read(ctx context.Context) (*File, error) {
	ctx, cancel := bound(ctx, pgTimeout, "a read of the state")
	defer cancel()
	pool, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	f, err := p.read(ctx, pool)
	if err != nil {
		return nil, err
	}
	return f, f.checkNotMoved(p.Describe())
}

func (p *PG) read(ctx context.Context, pool *pgxpool.Pool) (*File, error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, p.redact(ctx, "read state", err)
	}
	defer tx.Rollback(ctx)
	rd := &pgRead{tx: tx}
	f, at, err := p.readHeader(ctx, rd)
	if err != nil || at.Xmin == "" { // an error, or no state
		return f, err
	}
	if err := p.readResourcesSince(ctx, rd, f, at); err != nil {
		return nil, err
	}
	ws := []any{p.cfg.Workspace}
	intents := rowQuery{what: "job intent", key: "id", val: "intent", from: p.table("job_intents") + " WHERE workspace = $1 ORDER BY seq"}
	if _, f.JobIntents, err = readDecoded(ctx, p, rd, intents, ws, strictKeyed(intents, func(in *JobIntent) string { return in.ID })); err != nil {
		return nil, err
	}
	written := rowQuery{what: "written entry", key: "path", val: "entry", from: p.table("written") + " WHERE workspace = $1 ORDER BY path"}
	if _, f.Written, err = readDecoded(ctx, p, rd, written, ws, strictKeyed(written, func(w *Written) string { return w.Path })); err != nil {
		return nil, err
	}
	if err := f.checkEntries(); err != nil {
		return nil, fmt.Errorf("read state (%s): %w", p.Describe(), err)
	}
	return f, nil
}

// readHeader reads the workspace's row of states, bounded in the query
// as every row is (see rowQuery). A workspace with no state is an empty
// File with a zero pgPoint.
func (p *PG) readHeader(ctx context.Context, rd *pgRead) (*File, pgPoint, error) {
	f := &File{Resources: map[string]*Resource{}}
	var moved []byte
	var at pgPoint
	var size int64
	fits := fmt.Sprintf("size <= %d", maxPGRow)
	err := rd.tx.QueryRow(ctx, "SELECT size, CASE WHEN "+fits+" THEN lineage ELSE '' END, serial, format_version, CASE WHEN "+fits+
		" THEN voxform_version ELSE '' END, CASE WHEN "+fits+" THEN moved_to END, epoch, pg_snapshot_xmin(pg_current_snapshot())::text FROM (SELECT *,"+
		" octet_length(lineage)::bigint + octet_length(voxform_version) + coalesce(octet_length(moved_to::text), 0) AS size FROM "+p.table("states")+
		" WHERE workspace = $1) s", p.cfg.Workspace).Scan(&size, &f.Lineage, &f.Serial, &f.Version, &f.VoxformVersion, &moved, &at.Epoch, &at.Xmin)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return f, pgPoint{}, nil
	case err != nil:
		return nil, at, p.redact(ctx, "read state", err)
	}
	if err := p.admit(rd, size, "the row of workspace "+p.cfg.Workspace+" in states", ""); err != nil {
		return nil, at, err
	}
	if f.Version > FormatVersion {
		return nil, at, fmt.Errorf("read state (%s): %w (format %d)", p.Describe(), ErrNewerVersion, f.Version)
	}
	if len(moved) > 0 {
		if err := json.Unmarshal(moved, &f.MovedTo); err != nil {
			return nil, at, fmt.Errorf("read state (%s): moved_to: %v", p.Describe(), err)
		}
	}
	return f, at, nil
}

// pgRead is one read of the state: its transaction, and the bytes read
// so far, bounded by pgReadLimit as a state file is by MaxStateSize.
type pgRead struct {
	tx    pgx.Tx
	total int64
}

// pgReadLimit bounds the bytes of rows one read of the state takes: the
// file backend's bound of a state (a variable for tests).
var pgReadLimit int64 = MaxStateSize

// rowNameChars is how much of a key names a row too large to be read.
const rowNameChars = 200

// rowQuery is a read of (key, value) rows: the two columns and what
// follows FROM (the table, the conditions and the order). Each row is
// bounded in the query, by maxPGRow: one larger comes back as its size and
// the start of its key, its value NULL, so that the driver never buffers
// it (a row of 400 MB took the memory of the process before).
type rowQuery struct {
	what, key, val, from string
}

func (q rowQuery) sql() string {
	size := "(octet_length(" + q.key + ")::bigint + coalesce(octet_length(" + q.val + "::text), 0))"
	fits := size + " <= " + strconv.Itoa(maxPGRow)
	return "SELECT CASE WHEN " + fits + " THEN " + q.key + " ELSE left(" + q.key + ", " + strconv.Itoa(rowNameChars) + ") END, CASE WHEN " +
		fits + " THEN " + q.val + "::text END, " + size + "::text FROM " + q.from
}

// readRows calls fn for each (key, value) row of q, refusing a row over
// maxPGRow and a read over pgReadLimit, naming the row, escaped.
func (p *PG) readRows(ctx context.Context, rd *pgRead, q rowQuery, args []any, fn func(string, []byte) error) error {
	rows, err := rd.tx.Query(ctx, q.sql(), args...)
	if err != nil {
		return p.redact(ctx, "read state", err)
	}
	defer rows.Close()
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != 3 {
			return fmt.Errorf("read state (%s): %d columns", p.Describe(), len(raw))
		}
		size, err := strconv.ParseInt(string(raw[2]), 10, 64)
		if err != nil {
			return fmt.Errorf("read state (%s): %s %s: size %q", p.Describe(), q.what, rowName(raw[0]), raw[2])
		}
		if err := p.admit(rd, size, q.what+" "+rowName(raw[0]), "a row of "); err != nil {
			return err
		}
		if err := fn(string(raw[0]), raw[1]); err != nil {
			return fmt.Errorf("read state (%s): %w", p.Describe(), err)
		}
	}
	return p.redact(ctx, "read state", rows.Err())
}

// admit counts a row of size bytes, named by name, into the read: the one
// home of the bounds of a read, a row over maxPGRow refused and a read
// over pgReadLimit; the row's size follows its name and kind.
func (p *PG) admit(rd *pgRead, size int64, name, kind string) error {
	if size > maxPGRow {
		return fmt.Errorf("read state (%s): %s: %s%s, more than %s, the limit of a row", p.Describe(), name, kind, sizeString(size), sizeString(maxPGRow))
	}
	if rd.total += size; rd.total > pgReadLimit {
		return fmt.Errorf("read state (%s): more than %s at %s, the limit of a state", p.Describe(), sizeString(pgReadLimit), name)
	}
	return nil
}

// rowName is a row's key for an error: escaped, and marked when cut.
func rowName(key []byte) string {
	s := strconv.Quote(string(key))
	if utf8.RuneCount(key) >= rowNameChars {
		s += " (its first " + strconv.Itoa(rowNameChars) + " characters)"
	}
	return s
}

// readDecoded reads the rows of q as readRows does, decoding each with
// decode on every CPU as they arrive (a plan of 100,000 resources waited
// 2.2 s for one goroutine to decode them): the rows' keys and values, in
// the rows' order. decode's error names the row.
func readDecoded[T any](ctx context.Context, p *PG, rd *pgRead, q rowQuery, args []any, decode func(key string, b []byte) (T, error)) ([]string, []T, error) {
	var (
		mu   sync.Mutex // guards vals, which the reader grows and the decoders fill
		keys []string
		vals []T
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	err := p.readRows(gctx, rd, q, args, func(key string, b []byte) error {
		if err := gctx.Err(); err != nil {
			return err
		}
		mu.Lock()
		i := len(keys)
		keys, vals = append(keys, key), append(vals, *new(T))
		mu.Unlock()
		b = bytes.Clone(b) // the driver's buffer, reused for the next row
		g.Go(func() error {
			v, err := decode(key, b)
			if err != nil {
				return fmt.Errorf("read state (%s): %w", p.Describe(), err)
			}
			mu.Lock()
			vals[i] = v
			mu.Unlock()
			return nil
		})
		return nil
	})
	if werr := g.Wait(); werr != nil {
		return nil, nil, werr // a row that did not decode, rather than the reading it stopped
	}
	return keys, vals, err
}

// strictKeyed decodes a row of q strictly (no unknown field) into a T
// whose key (keyOf) must be the row's.
func strictKeyed[T any](q rowQuery, keyOf func(*T) string) func(string, []byte) (T, error) {
	return func(key string, b []byte) (T, error) {
		var v T
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return v, fmt.Errorf("%s %q: %v", q.what, key, err)
		}
		if got := keyOf(&v); got != key {
			return v, fmt.Errorf("%s %q: its row's %s is %q", q.what, got, q.key, key)
		}
		return v, nil
	}
}

// errLockLost is wrapped by the errors of a write whose lock is gone.
var errLockLost = errors.New("the state lock is no longer held by this process")

// ErrLockLost reports a lost lock: the errors of a Recorder whose lock
// was taken over or forced open wrap it.
var ErrLockLost = errLockLost

// pgLock is a held lock of the pg backend: a session advisory lock on a
// connection of its own, plus the holder row whose lease the heartbeat
// renews on that connection.
type pgLock struct {
	p    *PG
	conn *pgx.Conn
	info LockInfo

	// confirmed is when the last write of the lease (the lock's row,
	// then each renewal) was sent: the server's lease runs at least a
	// lease from it. Only the heartbeat reads and writes it.
	confirmed time.Time

	stop     chan struct{}
	stopped  chan struct{}
	lostOnce sync.Once
	lost     chan struct{}
	lostErr  error
	unlocked bool
	mu       sync.Mutex // guards unlocked
}

// Info implements Unlocker.
func (l *pgLock) Info() LockInfo { return l.info }

// Lost is closed when the lock can no longer be trusted: its connection
// broke, or its holder row is gone (forced open). Work stops then; what
// is done may still be recorded while the row names this holder.
func (l *pgLock) Lost() <-chan struct{} { return l.lost }

// LostErr says why the lock was lost (nil while it is held).
func (l *pgLock) LostErr() error {
	select {
	case <-l.lost:
		return l.lostErr
	default:
		return nil
	}
}

func (l *pgLock) markLost(err error) {
	l.lostOnce.Do(func() {
		l.lostErr = err
		close(l.lost)
	})
}

// Watched is a lock that may be lost while it is held: the pg backend's,
// when its connection or its holder row is gone. The workspace stops
// apply's new work when Lost is closed.
type Watched interface {
	Lost() <-chan struct{}
	LostErr() error
}

// Lock implements Backend: it fails at once, naming the holder, when the
// workspace is locked.
func (p *PG) Lock(ctx context.Context, op string) (Unlocker, error) {
	ctx, cancel := bound(ctx, pgTimeout, "taking the lock")
	defer cancel()
	if _, err := p.connect(ctx); err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, p.conf.ConnConfig)
	if err != nil {
		return nil, p.redact(ctx, "lock state", err)
	}
	key := lockKey("state", p.cfg.Schema, p.cfg.Workspace)
	fail := func(err error) (Unlocker, error) {
		ctx, cancel := cleanup(ctx)
		defer cancel()
		conn.Close(ctx)
		return nil, err
	}
	// A holder killed a moment ago still holds the lock until the server
	// reads the end of its connection, which takes it a few milliseconds
	// (longer on a loaded machine): a held lock is asked for again for up
	// to heldGrace before it is reported.
	var got bool
	for deadline := time.Now().Add(heldGrace); ; {
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
			return fail(p.redact(ctx, "lock state", err))
		}
		if got || time.Now().After(deadline) {
			break
		}
		if clock.Sleep(ctx, 50*time.Millisecond) != nil {
			return fail(p.redact(ctx, "lock state", ctx.Err()))
		}
	}
	if !got {
		info, _, _ := p.holder(ctx, conn)
		return fail(&LockedError{Path: p.Describe(), Info: info})
	}
	// The advisory lock is ours, so whoever held it before has no session
	// left; but a holder whose connection was cut may still be finishing
	// what it had started until its lease ends. A failure from here
	// releases the advisory lock before closing: the server ends a closed
	// connection's session a moment later, and a retry must not find its
	// own lock held.
	fail = func(err error) (Unlocker, error) {
		ctx, cancel := cleanup(ctx)
		defer cancel()
		conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key)
		conn.Close(ctx)
		return nil, err
	}
	info := newLockInfo(op)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fail(p.redact(ctx, "lock state", err))
	}
	var old []byte
	var live bool
	var until time.Time
	err = tx.QueryRow(ctx, "SELECT "+boundedInfo+", lease_until > clock_timestamp(), lease_until FROM "+p.table("locks")+
		" WHERE workspace = $1 FOR UPDATE", p.cfg.Workspace).Scan(&old, &live, &until)
	switch {
	case err == nil && live:
		tx.Rollback(ctx) // before the advisory unlock of fail
		var prev LockInfo
		_ = json.Unmarshal(old, &prev)
		// The holder's lease is waited for only up to this backend's own:
		// a row claiming a longer one (another configuration, or a
		// damaged row) is reported, not waited on.
		gone := time.Until(until) <= p.cfg.Lease+time.Second
		return fail(&LockedError{Path: p.Describe(), Info: prev, Gone: gone, Until: until,
			Note: fmt.Sprintf("its session is gone; its lease ends at %s", until.UTC().Format(time.RFC3339))})
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		tx.Rollback(ctx)
		return fail(p.redact(ctx, "lock state", err))
	}
	b, _ := json.Marshal(info)
	// The row's lease runs from the server's clock when it reads the
	// statement, so at least a lease from now.
	sent := time.Now()
	if _, err := tx.Exec(ctx, "INSERT INTO "+p.table("locks")+` (workspace, id, info, backend_pid, lease_until)
		VALUES ($1, $2, $3, pg_backend_pid(), clock_timestamp() + $4 * interval '1 millisecond')
		ON CONFLICT (workspace) DO UPDATE SET id = EXCLUDED.id, info = EXCLUDED.info,
		backend_pid = EXCLUDED.backend_pid, lease_until = EXCLUDED.lease_until`,
		p.cfg.Workspace, info.ID, string(b), p.cfg.Lease.Milliseconds()); err != nil {
		tx.Rollback(ctx)
		return fail(p.redact(ctx, "lock state", err))
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(p.redact(ctx, "lock state", err))
	}
	l := &pgLock{p: p, conn: conn, info: info, confirmed: sent,
		stop: make(chan struct{}), stopped: make(chan struct{}), lost: make(chan struct{})}
	go l.heartbeat()
	return l, nil
}

// boundedInfo is the info column of a holder row, NULL (no holder
// information) when it is over maxLockInfo, as a lock file's is read.
var boundedInfo = fmt.Sprintf("CASE WHEN octet_length(info::text) <= %d THEN info END", maxLockInfo)

// holder reads the holder row.
func (p *PG) holder(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
},
) (LockInfo, int32, error) {
	var b []byte
	var pid int32
	var info LockInfo
	err := q.QueryRow(ctx, "SELECT "+boundedInfo+", backend_pid FROM "+p.table("locks")+" WHERE workspace = $1", p.cfg.Workspace).Scan(&b, &pid)
	if err != nil {
		return info, 0, err
	}
	if len(b) <= maxLockInfo {
		_ = json.Unmarshal(b, &info)
	}
	return info, pid, nil
}

// heartbeat renews the lease every third of it on the lock's connection;
// a failure (the connection broke, the row is no longer this holder's,
// or no answer before the lease as last confirmed nears its end) marks
// the lock lost.
func (l *pgLock) heartbeat() {
	defer close(l.stopped)
	lease := l.p.cfg.Lease
	t := time.NewTicker(lease / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		sent := time.Now()
		ctx, cancel := l.renewal(sent)
		tag, err := l.conn.Exec(ctx, "UPDATE "+l.p.table("locks")+
			" SET lease_until = clock_timestamp() + $3 * interval '1 millisecond' WHERE workspace = $1 AND id = $2",
			l.p.cfg.Workspace, l.info.ID, lease.Milliseconds())
		cancel()
		switch {
		case err != nil:
			l.markLost(fmt.Errorf("%w: its connection failed: %v", errLockLost, l.p.redact(ctx, "renew the lock's lease", err)))
			return
		case tag.RowsAffected() == 0:
			l.markLost(fmt.Errorf("%w: its holder row is gone (force-unlock?)", errLockLost))
			return
		}
		l.confirmed = sent
	}
}

// renewal is the context of a renewal sent at sent. Its deadline is
// where the lease as last confirmed ends, less renewMargin of it: another
// process may take the lock only once the server's lease has run out
// (and this lock's session is gone), so a renewal that has not answered
// by then marks the lock lost before anyone else can hold it. A renewal
// may thus take about two thirds of the lease, not one slow answer
// losing a lock that nobody else could have taken yet.
func (l *pgLock) renewal(sent time.Time) (context.Context, context.CancelFunc) {
	lease := l.p.cfg.Lease
	end := l.confirmed.Add(lease - lease/renewMargin)
	return context.WithDeadlineCause(context.Background(), end,
		&limitError{what: "renewing the lock's lease (the end of its lease as last renewed)", limit: end.Sub(sent).Round(time.Millisecond)})
}

// renewMargin is the part of the lease (1/renewMargin) left between a
// renewal's deadline and the end of the lease it renews: time for the
// holder to stop once the lock is marked lost.
const renewMargin = 10

// Unlock implements Unlocker: it deletes the holder row and ends the
// lock's session (which frees the advisory lock). When the connection is
// gone, the row is deleted through another, so that the next holder need
// not wait for the lease.
func (l *pgLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unlocked {
		return nil
	}
	l.unlocked = true
	close(l.stop)
	<-l.stopped
	// Not the caller's context: a lock is released after an interrupt too.
	ctx, cancel := bound(context.Background(), pgTimeout, "releasing the lock")
	defer cancel()
	q := "DELETE FROM " + l.p.table("locks") + " WHERE workspace = $1 AND id = $2"
	_, err := l.conn.Exec(ctx, q, l.p.cfg.Workspace, l.info.ID)
	if err == nil {
		// Released here rather than by the end of the session, which the
		// server sees a moment after the connection closes.
		_, err = l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey("state", l.p.cfg.Schema, l.p.cfg.Workspace))
	}
	l.conn.Close(ctx)
	if err != nil {
		pool, perr := l.p.connect(ctx)
		if perr != nil {
			return fmt.Errorf("unlock state: %w", perr)
		}
		if _, err := pool.Exec(ctx, q, l.p.cfg.Workspace, l.info.ID); err != nil {
			return fmt.Errorf("unlock state: %w", l.p.redact(ctx, "delete the lock's row", err))
		}
	}
	return nil
}

// ForceUnlock implements Backend: it deletes the holder row of the lock
// whose ID is id and, if the holder's session is still open (a hung
// process), terminates that session, so that the holder finds its lock
// lost and stops.
func (p *PG) ForceUnlock(ctx context.Context, id string) error {
	ctx, cancel := bound(ctx, pgTimeout, "force-unlock")
	defer cancel()
	pool, err := p.connect(ctx)
	if err != nil {
		return err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return p.redact(ctx, "force-unlock", err)
	}
	defer tx.Rollback(ctx)
	info, pid, err := p.holder(ctx, tx)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotLocked
	}
	if err != nil {
		return p.redact(ctx, "force-unlock", err)
	}
	if info.ID != id {
		return fmt.Errorf("force-unlock: lock id %q does not match the holder's (%s)", id, (&LockedError{Path: p.Describe(), Info: info}).Error())
	}
	if _, err := tx.Exec(ctx, "DELETE FROM "+p.table("locks")+" WHERE workspace = $1 AND id = $2", p.cfg.Workspace, id); err != nil {
		return p.redact(ctx, "force-unlock", err)
	}
	// Terminate the holder's session only if it still holds this
	// workspace's advisory lock (a pid may have been reused).
	key := uint64(lockKey("state", p.cfg.Schema, p.cfg.Workspace))
	if _, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid = $2 AND objid = $3 AND objsubid = 1`, pid, uint32(key>>32), uint32(key)); err != nil {
		return p.redact(ctx, "force-unlock", err)
	}
	return p.redact(ctx, "force-unlock", tx.Commit(ctx))
}

// Open implements Backend. lock must be a held lock taken from p. ctx
// bounds the read of the state, not the records: see pgStore.
func (p *PG) Open(ctx context.Context, lock Unlocker, now func() time.Time) (*Recorder, error) {
	l, ok := lock.(*pgLock)
	if !ok || l.p != p || l.LostErr() != nil {
		return nil, errors.New("open state: the state is not locked")
	}
	base := context.WithoutCancel(ctx)
	ctx, cancel := bound(ctx, pgTimeout, "a read of the state")
	defer cancel()
	pool, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	f, err := p.read(ctx, pool)
	if err != nil {
		return nil, err
	}
	if err := f.checkNotMoved(p.Describe()); err != nil {
		return nil, err
	}
	return newRecorder(&pgStore{p: p, lock: l, pool: pool, base: base}, f, now), nil
}

// pgStore is the store of the pg backend: each record is one transaction,
// fenced by the holder row (it fails, recording nothing, once the row no
// longer names this holder).
type pgStore struct {
	p    *PG
	lock *pgLock
	pool *pgxpool.Pool
	// base is Open's context without its cancellation: what was done (and
	// paid for) is recorded after an interrupt too, each record bounded
	// by pgTimeout.
	base context.Context

	mu     sync.Mutex // guards header
	header bool       // the header row is known to exist with this lineage
}

func (s *pgStore) write(rec *record, lineage string, serial int64, apply func()) (func() error, error) {
	err := s.p.retry(s.base, func() error { return s.writeOnce(rec, lineage, serial) })
	if err != nil {
		return nil, err
	}
	apply()
	return func() error { return nil }, nil
}

// retry runs tx (one transaction) again when it failed for want of a
// connection (a restarted server, a cut network) rather than for what the
// server answered: every transaction of the backend can run twice, since
// one whose commit was lost on the way is repeated to the same effect.
func (p *PG) retry(ctx context.Context, tx func() error) error {
	var err error
	for i, wait := range []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second} {
		if i > 0 && clock.Sleep(ctx, wait) != nil {
			return err
		}
		if err = tx(); err == nil || !connectionLost(err) {
			return err
		}
	}
	return err
}

// connectionLost reports whether err says a connection was lost or could
// not be made, rather than what the server answered about the statement.
func connectionLost(err error) bool {
	var pe *PGError
	if !errors.As(err, &pe) || errors.Is(err, errLockLost) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var se *pgconn.PgError
	if errors.As(pe.cause, &se) {
		return strings.HasPrefix(se.Code, "08") || se.Code == "57P01" || se.Code == "57P02" || se.Code == "57P03"
	}
	return true
}

func (s *pgStore) writeOnce(rec *record, lineage string, serial int64) error {
	ctx, cancel := bound(s.base, pgTimeout, "a record")
	defer cancel()
	b := &pgx.Batch{}
	p, ws := s.p, s.p.cfg.Workspace
	b.Queue(p.fence(), ws, s.lock.info.ID)
	s.mu.Lock()
	header := s.header
	s.mu.Unlock()
	if !header {
		b.Queue(`INSERT INTO `+p.table("states")+` (workspace, lineage, serial, format_version, voxform_version)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (workspace) DO UPDATE SET workspace = EXCLUDED.workspace
			RETURNING lineage, moved_to IS NOT NULL`, ws, lineage, serial, FormatVersion, VoxformVersion)
	}
	if err := s.queue(b, rec); err != nil {
		return err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return p.redact(ctx, "record", err)
	}
	defer tx.Rollback(ctx)
	res := tx.SendBatch(ctx, b)
	var one int
	if err := res.QueryRow().Scan(&one); err != nil {
		res.Close()
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("record (%s): %w: its holder row is gone (the lock was forced open or taken over after its lease ran out)", p.Describe(), errLockLost)
		}
		return p.redact(ctx, "record", err)
	}
	if !header {
		var got string
		var moved bool
		if err := res.QueryRow().Scan(&got, &moved); err != nil {
			res.Close()
			return p.redact(ctx, "record", err)
		}
		if got != lineage || moved {
			res.Close()
			return fmt.Errorf("record (%s): the state there is not the one this apply read (lineage %s, not %s, or moved)", p.Describe(), got, lineage)
		}
	}
	if err := res.Close(); err != nil {
		return p.redact(ctx, "record", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return p.redact(ctx, "record", err)
	}
	if !header {
		s.mu.Lock()
		s.header = true
		s.mu.Unlock()
	}
	return nil
}

// queue adds the statements of rec to b.
func (s *pgStore) queue(b *pgx.Batch, rec *record) error {
	p, ws := s.p, s.p.cfg.Workspace
	var gone []string
	switch rec.Op {
	case opPut, opRemove:
		for addr, r := range rec.Resources {
			if err := queueResource(b, p, ws, addr, r); err != nil {
				return err
			}
			gone = append(gone, addr)
		}
		if len(rec.Remove) > 0 {
			b.Queue("DELETE FROM "+p.table("resources")+" WHERE workspace = $1 AND address = ANY($2)", ws, rec.Remove)
			gone = append(gone, rec.Remove...)
		}
		if len(gone) > 0 {
			b.Queue("DELETE FROM "+p.table("written")+" WHERE workspace = $1 AND address = ANY($2)", ws, gone)
		}
	case opWritten:
		for _, w := range rec.Written {
			j, err := json.Marshal(w)
			if err != nil {
				return err
			}
			b.Queue("INSERT INTO "+p.table("written")+` (workspace, path, address, entry) VALUES ($1, $2, $3, $4)
				ON CONFLICT (workspace, path) DO UPDATE SET address = EXCLUDED.address, entry = EXCLUDED.entry`,
				ws, w.Path, w.Address, string(j))
		}
	case opIntent:
		j, err := json.Marshal(rec.Intent)
		if err != nil {
			return err
		}
		b.Queue("INSERT INTO "+p.table("job_intents")+" (workspace, id, intent) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", ws, rec.Intent.ID, string(j))
	case opIntentClear:
		b.Queue("DELETE FROM "+p.table("job_intents")+" WHERE workspace = $1 AND id = ANY($2)", ws, rec.ClearIntents)
	default:
		return fmt.Errorf("record: unknown operation %q", rec.Op)
	}
	return nil
}

// queueResource adds the upsert of one resource row to b.
func queueResource(b *pgx.Batch, p *PG, ws, addr string, r *Resource) error {
	j, err := r.MarshalJSON()
	if err != nil {
		return fmt.Errorf("record %s: %w", addr, err)
	}
	if len(j) > maxPGRow {
		return fmt.Errorf("record %s: %s, more than %s, the limit of a row", addr, sizeString(int64(len(j))), sizeString(maxPGRow))
	}
	b.Queue("INSERT INTO "+p.table("resources")+` (workspace, address, kind, status, fingerprint, job_id, file_id,
		billed_characters, billed_audio_seconds, created_at, updated_at, resource)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, ''), $8, $9, $10, $11, $12)
		ON CONFLICT (workspace, address) DO UPDATE SET kind = EXCLUDED.kind, status = EXCLUDED.status,
		fingerprint = EXCLUDED.fingerprint, job_id = EXCLUDED.job_id, file_id = EXCLUDED.file_id,
		billed_characters = EXCLUDED.billed_characters, billed_audio_seconds = EXCLUDED.billed_audio_seconds,
		created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, resource = EXCLUDED.resource`,
		ws, addr, r.Kind, r.Status, r.Fingerprint, r.Details().JobID, r.Details().FileID, r.BilledCharacters, r.Details().BilledAudioSeconds,
		r.CreatedAt, r.UpdatedAt, string(j))
	return nil
}

func (s *pgStore) commit(f *File, changed bool) error {
	if !changed {
		return nil
	}
	return s.p.retry(s.base, func() error { return s.commitOnce(f) })
}

func (s *pgStore) commitOnce(f *File) error {
	ctx, cancel := bound(s.base, pgTimeout, "saving the state")
	defer cancel()
	p := s.p
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return p.redact(ctx, "save state", err)
	}
	defer tx.Rollback(ctx)
	var one int
	err = tx.QueryRow(ctx, p.fence(), p.cfg.Workspace, s.lock.info.ID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("save state (%s): %w", p.Describe(), errLockLost)
	}
	if err != nil {
		return p.redact(ctx, "save state", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE "+p.table("states")+" SET serial = $2, format_version = $3, voxform_version = $4, updated_at = now() WHERE workspace = $1",
		p.cfg.Workspace, f.Serial, f.Version, f.VoxformVersion); err != nil {
		return p.redact(ctx, "save state", err)
	}
	// Removals are kept for readers' snapshots (pgsnapshot.go) for
	// keepRemoved; a snapshot older than the removals pruned is read anew,
	// the epoch telling it.
	pruned, err := tx.Exec(ctx, "DELETE FROM "+p.table("removed")+" WHERE workspace = $1 AND at < now() - $2::interval",
		p.cfg.Workspace, fmt.Sprintf("%d seconds", int64(keepRemoved.Seconds())))
	if err != nil {
		return p.redact(ctx, "save state", err)
	}
	if pruned.RowsAffected() > 0 {
		if _, err := tx.Exec(ctx, "UPDATE "+p.table("states")+" SET epoch = $2 WHERE workspace = $1", p.cfg.Workspace, newEpoch()); err != nil {
			return p.redact(ctx, "save state", err)
		}
	}
	return p.redact(ctx, "save state", tx.Commit(ctx))
}
