package state

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/internal/pgtest"
)

// stallTables locks every table of the backend from another connection
// until release is called, so that each statement on them waits: a server
// that does not answer.
func stallTables(t *testing.T, url string) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := sqlConn(t, url).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release = func() { tx.Rollback(ctx) }
	t.Cleanup(release)
	if _, err := tx.Exec(ctx, "LOCK TABLE voxform.states, voxform.resources, voxform.job_intents, voxform.written, voxform.locks IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return release
}

// silentServer is a loopback TCP listener that accepts connections and
// never answers; it returns a connection string to it.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return fmt.Sprintf("postgres://voxform:pw@%s/voxform?sslmode=disable", ln.Addr())
}

// Every operation of the backend that waits on the server ends as soon as
// the caller's context is cancelled (a Ctrl-C), with context.Canceled: not
// after the backend's own bound (30 s, or 10 s to connect).
func TestPGCancelledByCaller(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	lk, rec := openPG(t, p)
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	other := newPG(t, url, "other", 0)
	if _, err := other.Read(context.Background()); err != nil { // connected, tables made
		t.Fatal(err)
	}
	silent := newPG(t, silentServer(t), "", 0)
	defer stallTables(t, url)() // before the unlock

	ops := []struct {
		name string
		op   func(context.Context) error
	}{
		{"read", func(ctx context.Context) error { _, err := p.Read(ctx); return err }},
		{"open", func(ctx context.Context) error { _, err := p.Open(ctx, lk, nil); return err }},
		{"lock", func(ctx context.Context) error { _, err := other.Lock(ctx, "apply"); return err }},
		{"lock within", func(ctx context.Context) error {
			_, err := LockWithin(ctx, other, "apply", time.Minute, nil)
			return err
		}},
		{"force-unlock", func(ctx context.Context) error { return p.ForceUnlock(ctx, lk.Info().ID) }},
		{"migrate", func(ctx context.Context) error { _, err := Migrate(ctx, NewLocal(t.TempDir()), other); return err }},
		{"connect", func(ctx context.Context) error { _, err := silent.Read(ctx); return err }},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			err := o.op(ctx)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("returned %v after the cancel", d-300*time.Millisecond)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("want context.Canceled, got %v", err)
			}
		})
	}
}

// The backend's own bound of an operation is derived from the caller's
// context and named in the error when it runs out.
func TestPGTimeoutNamed(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	if _, err := p.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	stallTables(t, url)
	defer func(d time.Duration) { pgTimeout = d }(pgTimeout)
	pgTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err := p.Read(context.Background())
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("returned after %v", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms, the limit of a read of the state") {
		t.Errorf("want the bound named, got %v", err)
	}

	// The driver's bound of a connection, to a server that never answers.
	pgTimeout = 30 * time.Second
	defer func(d time.Duration) { pgConnectTimeout = d }(pgConnectTimeout)
	pgConnectTimeout = 300 * time.Millisecond
	_, err = newPG(t, silentServer(t), "", 0).Read(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms, the limit of connecting") {
		t.Errorf("want the connection's bound named, got %v", err)
	}
}
