package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/voxform/voxform/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newPG is a pg backend on a new database of the shared server.
func newPG(t testing.TB, url, workspace string, lease time.Duration) *PG {
	t.Helper()
	p, err := NewPG(PGConfig{ConnString: url, Env: "VOXFORM_PG", Workspace: workspace, Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func openPG(t testing.TB, p *PG) (Unlocker, *Recorder) {
	t.Helper()
	lk, err := p.Lock(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := p.Open(context.Background(), lk, fixedNow)
	if err != nil {
		lk.Unlock()
		t.Fatal(err)
	}
	return lk, rec
}

// Every record is a committed row that another reader sees at once; the
// state read back is the one recorded, serial increased on Close.
func TestPGRecordAndRead(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	lk, rec := openPG(t, p)
	defer lk.Unlock()
	other := newPG(t, url, "", 0)

	if err := rec.Record("synthesis.a", sampleResource("नमस्ते")); err != nil {
		t.Fatal(err)
	}
	if got, err := other.Read(context.Background()); err != nil || len(got.Resources) != 1 || got.Serial != 0 || got.Lineage == "" {
		t.Fatalf("a reader sees %v (serial %d), %v", got.Addresses(), got.Serial, err)
	}
	pending := map[string]*Resource{
		`transcription.calls["a.wav"]`: (&Resource{Kind: "transcription", Fingerprint: "f1"}).WithDetails(Details{Source: &Source{Path: "a.wav", Name: "a.wav"}}),
		`transcription.calls["b.wav"]`: (&Resource{Kind: "transcription", Fingerprint: "f2"}).WithDetails(Details{Source: &Source{Path: "b.wav", Name: "b.wav"}}),
	}
	if err := rec.RecordPending("job_1", "batch", pending); err != nil {
		t.Fatal(err)
	}
	in, err := rec.RecordJobIntent(JobIntent{API: "batch", Config: JobIntentConfig{Model: "stt", LanguageCode: "hi-IN"}, Files: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.NoteWritten("synthesis.b", "fp-b", []Output{{Path: "out/b.wav", SHA256: "aa", Size: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Move("synthesis.a", "synthesis.c", sampleResource("नमस्ते")); err != nil {
		t.Fatal(err)
	}
	want := rec.Snapshot()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := other.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want.Serial++
	want.Version, want.VoxformVersion = FormatVersion, VoxformVersion
	if a, b := encoded(t, want), encoded(t, got); !bytes.Equal(a, b) {
		t.Fatalf("read back:\n%s\nwant:\n%s", b, a)
	}
	if len(got.JobIntents) != 1 || got.JobIntents[0].ID != in.ID || len(got.Written) != 1 || got.Resources[`transcription.calls["a.wav"]`].Details().JobID != "job_1" {
		t.Fatalf("intents %v, written %v", got.JobIntents, got.Written)
	}

	// A second session: the written entry goes with its address's record,
	// the intent when cleared.
	lk.Unlock()
	lk2, rec2 := openPG(t, p)
	defer lk2.Unlock()
	if err := rec2.Record("synthesis.b", sampleResource("b")); err != nil {
		t.Fatal(err)
	}
	if err := rec2.ClearJobIntents(in.ID); err != nil {
		t.Fatal(err)
	}
	if err := rec2.Remove(`transcription.calls["b.wav"]`); err != nil {
		t.Fatal(err)
	}
	if err := rec2.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = other.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Serial != 2 || len(got.Written) != 0 || len(got.JobIntents) != 0 || len(got.Resources) != 3 {
		t.Fatalf("serial %d, written %v, intents %v, %v", got.Serial, got.Written, got.JobIntents, got.Addresses())
	}
}

func encoded(t testing.TB, f *File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A second locker is refused at once naming the holder; other workspaces
// of the schema, and the same workspace in another schema, are not
// blocked (their advisory keys differ).
func TestPGLockScopedToWorkspace(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "ivr", 0)
	lk, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()

	start := time.Now()
	_, err = newPG(t, url, "ivr", 0).Lock(context.Background(), "plan")
	var le *LockedError
	if !errors.As(err, &le) || le.Info.ID != lk.Info().ID || le.Info.Operation != "apply" || le.Info.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused after %v, want at once", d)
	}
	for _, cfg := range []PGConfig{{Workspace: "audiobook"}, {Workspace: "ivr", Schema: "other"}} {
		cfg.ConnString = url
		o, err := NewPG(cfg)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := o.Lock(context.Background(), "apply")
		if err != nil {
			t.Errorf("%s: %v", o.Describe(), err)
			continue
		}
		l2.Unlock()
		o.Close()
	}
	// With a wait, the second locker gets the lock once the first lets go.
	go func() { time.Sleep(300 * time.Millisecond); lk.Unlock() }()
	l3, err := LockWithin(context.Background(), newPG(t, url, "ivr", 0), "apply", 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	l3.Unlock()
}

// A holder whose session ends without unlocking (a killed process, a cut
// connection) leaves its row: the lock is refused, naming it, until its
// lease ends, and free after.
func TestPGLockFreeWithinLease(t *testing.T) {
	url := pgtest.Database(t)
	// Long enough for the six tries within it on a loaded machine.
	const lease = 4 * time.Second
	p := newPG(t, url, "", lease)
	lk, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	pl := lk.(*pgLock)
	close(pl.stop) // the heartbeat dies with the process
	<-pl.stopped
	died := time.Now()
	pl.conn.Close(context.Background())

	q := newPG(t, url, "", lease)
	_, err = q.Lock(context.Background(), "apply")
	var le *LockedError
	if !errors.As(err, &le) || le.Info.ID != lk.Info().ID || !strings.Contains(err.Error(), "lease ends") {
		t.Fatalf("lock within the lease: %v", err)
	}
	// Asked again at once, the answer is the same: the advisory lock the
	// first try took is released with it, not left to the end of its
	// session (the server ends a closed connection's a moment later).
	for range 5 {
		if _, err := q.Lock(context.Background(), "apply"); !errors.As(err, &le) || !le.Gone {
			t.Fatalf("lock asked again within the lease: %v", err)
		}
	}
	var told []string
	l2, err := LockWithin(context.Background(), q, "apply", 0, func(s string) { told = append(told, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || !strings.Contains(told[0], "is gone") {
		t.Errorf("told %q", told)
	}
	defer l2.Unlock()
	if d := time.Since(died); d > lease+2*time.Second {
		t.Errorf("free after %v, lease %v", d, lease)
	}
}

// A holder whose lock is forced open finds it lost: Lost is closed and its
// records fail, writing nothing.
func TestPGForceUnlockStopsTheHolder(t *testing.T) {
	url := pgtest.Database(t)
	const lease = time.Second
	p := newPG(t, url, "", lease)
	lk, rec := openPG(t, p)
	defer lk.Unlock()
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	other := newPG(t, url, "", lease)
	if err := other.ForceUnlock(context.Background(), "wrong"); err == nil {
		t.Fatal("force-unlock with a wrong id")
	}
	if err := other.ForceUnlock(context.Background(), lk.Info().ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lk.(Watched).Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the holder did not notice")
	}
	err := rec.Record("synthesis.b", sampleResource("b"))
	if !errors.Is(err, ErrLockLost) {
		t.Fatalf("record after force-unlock: %v", err)
	}
	got, err := other.Read(context.Background())
	if err != nil || len(got.Resources) != 1 {
		t.Fatalf("%v, %v", got.Addresses(), err)
	}
	l2, err := other.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatalf("lock after force-unlock: %v", err)
	}
	l2.Unlock()
	if err := other.ForceUnlock(context.Background(), "any"); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("force-unlock of a free lock: %v", err)
	}
}

// A restarted server ends the lock's session: the holder finds its lock
// lost, and what it records before its lease ends is kept.
func TestPGServerRestart(t *testing.T) {
	url := pgtest.Database(t)
	const lease = 3 * time.Second
	p := newPG(t, url, "", lease)
	lk, rec := openPG(t, p)
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	srv := pgtest.Shared(t)
	srv.Stop()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lk.(Watched).Lost():
	case <-time.After(2 * lease):
		t.Fatal("the holder did not notice the restart")
	}
	// In flight when the server went: recorded on a new connection, since
	// the row still names this holder.
	if err := rec.Record("synthesis.b", sampleResource("b")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lk.Unlock(); err != nil {
		t.Fatal(err)
	}
	got, err := newPG(t, url, "", lease).Read(context.Background())
	if err != nil || len(got.Resources) != 2 || got.Serial != 1 {
		t.Fatalf("%v serial %d, %v", got.Addresses(), got.Serial, err)
	}
	l2, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatalf("lock after an unlock: %v", err)
	}
	l2.Unlock()
}

// Records from many workers at once all land.
func TestPGConcurrentRecords(t *testing.T) {
	p := newPG(t, pgtest.Database(t), "", 0)
	lk, rec := openPG(t, p)
	defer lk.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- rec.Record(fmt.Sprintf("synthesis.s%03d", i), sampleResource(fmt.Sprint(i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	got, err := p.Read(context.Background())
	if err != nil || len(got.Resources) != 200 {
		t.Fatalf("%d, %v", len(got.Resources), err)
	}
}

// local -> pg -> local gives the same state file, byte for byte; each
// source is left marked as moved, which commands refuse; a migration is
// refused while a lock is held, and into a backend holding a state.
func TestMigrateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	local := NewLocal(dir)
	lk, rec := func() (Unlocker, *Recorder) {
		lk, err := local.Lock(context.Background(), "test")
		if err != nil {
			t.Fatal(err)
		}
		rec, err := local.Open(context.Background(), lk, nil) // real clock: nanoseconds must survive
		if err != nil {
			t.Fatal(err)
		}
		return lk, rec
	}()
	for i := range 50 {
		r := sampleResource(fmt.Sprintf("text %d <laugh> \"q\" & <b>", i))
		switch i % 3 { // origins survive the migration
		case 1:
			r.Origin = OriginImported
		case 2:
			r.Origin, r.Edit().Take = OriginTake, strings.Repeat("ab", 32)
		}
		r.Edit().BilledAudioSeconds = 1.0 / 3
		if i%2 == 0 { // approvals and prevent_destroy survive the migration
			r.Edit().Approval = &Approval{Digest: OutputsDigest(r.Outputs), By: "Ana <ana@example.com>", At: time.Now().UTC(), Note: "IVR-1204 <b>"}
			r.PreventDestroy = true
		}
		if err := rec.Record(fmt.Sprintf(`synthesis.p["%d"]`, i), r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rec.RecordJobIntent(JobIntent{API: "batch", Config: JobIntentConfig{Model: "m", LanguageCode: "hi-IN"}}); err != nil {
		t.Fatal(err)
	}
	if err := rec.NoteWritten("synthesis.w", "fp", []Output{{Path: "w.wav", SHA256: "cc", Size: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	original, err := os.ReadFile(local.StatePath())
	if err != nil {
		t.Fatal(err)
	}

	url := pgtest.Database(t)
	pg := newPG(t, url, "", 0)
	held, err := pg.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	if _, err := Migrate(context.Background(), local, pg); !errors.As(err, &le) {
		t.Fatalf("migrate while locked: %v", err)
	}
	held.Unlock()
	if _, err := Migrate(context.Background(), local, pg); err != nil {
		t.Fatal(err)
	}
	var me *MovedError
	if _, err := local.Read(context.Background()); !errors.As(err, &me) || me.To.Backend != "pg" {
		t.Fatalf("read of the local copy left: %v", err)
	}
	if l, err := local.Lock(context.Background(), "apply"); err != nil {
		t.Fatal(err) // locking is fine; opening is not
	} else {
		if _, err := local.Open(context.Background(), l, nil); !errors.As(err, &me) {
			t.Fatalf("open of the local copy left: %v", err)
		}
		l.Unlock()
	}
	got, err := pg.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encoded(t, got), original) {
		t.Fatalf("pg holds:\n%s\nwant:\n%s", encoded(t, got), original)
	}
	// Back: the local file is the original again, and pg is marked.
	if _, err := Migrate(context.Background(), pg, local); err != nil {
		t.Fatal(err)
	}
	back, err := os.ReadFile(local.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, original) {
		t.Fatalf("round trip:\n%s\nwant:\n%s", back, original)
	}
	if _, err := pg.Read(context.Background()); !errors.As(err, &me) || me.To.Backend != "local" {
		t.Fatalf("read of the pg copy left: %v", err)
	}
	if _, _, err := func() (Unlocker, *Recorder, error) {
		lk, err := pg.Lock(context.Background(), "apply")
		if err != nil {
			return nil, nil, err
		}
		defer lk.Unlock()
		r, err := pg.Open(context.Background(), lk, nil)
		return lk, r, err
	}(); !errors.As(err, &me) {
		t.Fatalf("open of a moved state: %v", err)
	}
	// Into a backend that holds a live state: refused.
	other := NewLocal(t.TempDir())
	_, ol, orec := openLocked(t, other.Dir)
	orec.Record("synthesis.x", sampleResource("x"))
	orec.Close()
	ol.Unlock()
	if _, err := Migrate(context.Background(), local, other); err == nil || !strings.Contains(err.Error(), "already holds a state") {
		t.Fatalf("migrate into a live state: %v", err)
	}
}

// The password of the connection string never appears in an error, nor
// does the string itself.
func TestPGErrorsHideThePassword(t *testing.T) {
	srv := pgtest.Shared(t)
	bad := strings.Replace(srv.URL("postgres"), srv.Password, "s3cret-Pa55", 1)
	p, err := NewPG(PGConfig{ConnString: bad, Env: "VOXFORM_PG"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Read(context.Background())
	if err == nil || strings.Contains(err.Error(), "s3cret-Pa55") || !strings.Contains(err.Error(), "pg database postgres") {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = p.Lock(context.Background(), "apply")
	if err == nil || strings.Contains(err.Error(), "s3cret-Pa55") {
		t.Fatalf("lock: %v", err)
	}
	_, err = NewPG(PGConfig{ConnString: "postgres://u:s3cret-Pa55@host:notaport/db", Env: "VOXFORM_PG"})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "VOXFORM_PG") {
		t.Fatalf("parse: %v", err)
	}
	for _, cfg := range []PGConfig{{Schema: `x"; drop`}, {Workspace: "a b"}, {Lease: time.Millisecond}} {
		cfg.ConnString = srv.URL("postgres")
		if _, err := NewPG(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// A row naming a path voxform could not own is refused when read, as a
// state file's would be.
func TestPGHostileRow(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	lk, rec := openPG(t, p)
	rec.Record("synthesis.a", sampleResource("a"))
	rec.Close()
	lk.Unlock()
	ctx := context.Background()
	conn := sqlConn(t, url)
	if _, err := conn.Exec(ctx, `UPDATE voxform.resources SET resource = replace(resource::text, 'build/a.wav', '../victim.txt')::json`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "victim") {
		t.Fatalf("hostile row: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE voxform.resources SET resource = '{"kind": "synthesis", "bogus": 1}'`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown field: %v", err)
	}
}

// A holder row whose lease runs far past this backend's own (a damaged
// row, or another configuration) is reported at once, not waited on.
func TestPGLongLeaseNotWaitedOn(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 2*time.Second)
	lk, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	pl := lk.(*pgLock)
	close(pl.stop)
	<-pl.stopped
	ctx := context.Background()
	if _, err := pl.conn.Exec(ctx, "UPDATE voxform.locks SET lease_until = now() + interval '1 year'"); err != nil {
		t.Fatal(err)
	}
	pl.conn.Close(ctx)
	start := time.Now()
	_, err = LockWithin(context.Background(), p, "apply", 0, func(string) { t.Error("told it waits") })
	var le *LockedError
	if !errors.As(err, &le) || le.Gone || !strings.Contains(err.Error(), "lease ends") {
		t.Fatalf("lock: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("reported after %v", d)
	}
}

// sqlConn is a connection of its own to the database at url, for a test
// to change rows behind the backend's back; closed when the test ends.
func sqlConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// holdRow takes the lock's holder row FOR UPDATE in a transaction of its
// own, so that a renewal waits for it, and returns the lease end the
// server has recorded and the transaction (rolled back when the test ends).
func holdRow(t *testing.T, url string) (time.Time, pgx.Tx) {
	t.Helper()
	ctx := context.Background()
	tx, err := sqlConn(t, url).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	var until time.Time
	if err := tx.QueryRow(ctx, "SELECT lease_until FROM voxform.locks FOR UPDATE").Scan(&until); err != nil {
		t.Fatal(err)
	}
	return until, tx
}

// A renewal that answers late, but before the lease it renews has run
// out, keeps the lock: nobody else could have taken it meanwhile. (A
// loaded machine, or a busy server, makes one renewal slower than a third
// of the lease now and then.)
func TestPGSlowRenewalKeepsTheLock(t *testing.T) {
	url := pgtest.Database(t)
	const lease = 4 * time.Second
	p := newPG(t, url, "", lease)
	lk, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	locked := time.Now()
	defer lk.Unlock()
	held, tx := holdRow(t, url)
	// The first renewal starts a third of the lease after the lock and
	// waits for the row; it is let go more than a third of the lease
	// later, well before the lease it renews ends.
	time.Sleep(time.Until(locked.Add(2*lease/3 + 200*time.Millisecond)))
	if err := tx.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(locked.Add(lease + lease/3)))
	if err := lk.(Watched).LostErr(); err != nil {
		t.Fatalf("a renewal slower than a third of the lease lost the lock: %v", err)
	}
	var until time.Time
	if err := sqlConn(t, url).QueryRow(context.Background(), "SELECT lease_until FROM voxform.locks").Scan(&until); err != nil {
		t.Fatal(err)
	}
	if !until.After(held) {
		t.Fatalf("the lease was not renewed after the wait: ends %v, was %v", until, held)
	}
}

// A renewal that gets no answer marks the lock lost before the lease it
// renews runs out on the server, that is, before anyone else could take
// the lock.
func TestPGUnansweredRenewalLosesTheLockInTime(t *testing.T) {
	url := pgtest.Database(t)
	const lease = 4 * time.Second
	p := newPG(t, url, "", lease)
	lk, err := p.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	until, tx := holdRow(t, url)
	defer tx.Rollback(context.Background()) // before the unlock, which deletes the row
	select {
	case <-lk.(Watched).Lost():
	case <-time.After(2 * lease):
		t.Fatal("a renewal without an answer did not lose the lock")
	}
	var now time.Time
	if err := tx.QueryRow(context.Background(), "SELECT clock_timestamp()").Scan(&now); err != nil {
		t.Fatal(err)
	}
	if !now.Before(until) {
		t.Fatalf("the lock was found lost at %v, after its lease ended at %v", now, until)
	}
	if err := lk.(Watched).LostErr(); !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "end of its lease") {
		t.Fatalf("lost: %v", err)
	}
}
