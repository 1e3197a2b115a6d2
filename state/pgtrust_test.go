package state

import (
	"context"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/voxform/voxform/internal/pgtest"
)

// A connection string that may reach a host other than loopback or a
// Unix socket without TLS is refused before any connection (so these
// addresses, none of them loopback, are never dialled); loopback and
// sockets need no TLS, and the real server answers over loopback TCP
// without it.
func TestPGNeedsTLSOffLoopback(t *testing.T) {
	url := pgtest.Database(t) // the server starts with the environment as it was
	for _, env := range []string{"PGHOST", "PGHOSTADDR", "PGSSLMODE", "PGSERVICE", "PGSERVICEFILE"} {
		unsetenv(t, env)
	}
	refused := []string{
		"postgres://u:pw@10.1.2.3/db",
		"postgres://u:pw@10.1.2.3/db?sslmode=disable",
		"postgres://u:pw@db.example.com/db?sslmode=allow",
		"postgres://u:pw@db.example.com/db?sslmode=prefer",
		"postgres://u:pw@127.0.0.1,10.1.2.3/db?sslmode=disable",
		"postgres://u:pw@127.0.0.1:5432,[2001:db8::1]:5432/db",
		"host=/tmp,10.1.2.3 user=u password=pw dbname=db sslmode=disable",
		"host=127.0.0.2.example.com dbname=db sslmode=disable",
	}
	for _, cs := range refused {
		_, err := NewPG(PGConfig{ConnString: cs, Env: "VOXFORM_PG"})
		if err == nil || !strings.Contains(err.Error(), "sslmode=verify-full") || !strings.Contains(err.Error(), "VOXFORM_PG") {
			t.Errorf("%s: %v", cs, err)
		}
	}
	accepted := []string{
		"postgres://u:pw@10.1.2.3/db?sslmode=require",
		"postgres://u:pw@db.example.com/db?sslmode=verify-ca",
		"postgres://u:pw@db.example.com,10.1.2.3/db?sslmode=verify-full",
		"postgres://u:pw@localhost/db?sslmode=disable",
		"postgres://u:pw@[::1]:5432/db?sslmode=disable",
		"host=/var/run/postgresql dbname=db sslmode=disable",
	}
	for _, cs := range accepted {
		p, err := NewPG(PGConfig{ConnString: cs, Env: "VOXFORM_PG"})
		if err != nil {
			t.Errorf("%s: %v", cs, err)
			continue
		}
		p.Close()
	}

	// The environment pgx reads counts as the string does.
	t.Setenv("PGHOST", "10.1.2.3")
	if _, err := NewPG(PGConfig{ConnString: "dbname=db", Env: "VOXFORM_PG"}); err == nil {
		t.Error("PGHOST without TLS accepted")
	}
	t.Setenv("PGSSLMODE", "verify-full")
	if _, err := NewPG(PGConfig{ConnString: "dbname=db", Env: "VOXFORM_PG"}); err != nil {
		t.Errorf("PGHOST with PGSSLMODE=verify-full: %v", err)
	}
	os.Unsetenv("PGHOST")
	os.Unsetenv("PGSSLMODE")

	p := newPG(t, url, "", 0) // loopback TCP, sslmode=disable
	if _, err := p.Read(context.Background()); err != nil {
		t.Fatalf("loopback without TLS: %v", err)
	}
}

// unsetenv unsets the environment variable name for the test.
func unsetenv(t *testing.T, name string) {
	t.Setenv(name, "") // restored when the test ends
	os.Unsetenv(name)
}

// A database name holding the password (which the server then quotes,
// and the backend names in every message) never shows it: the real
// server refuses the database, and neither the error nor Describe holds
// the password, as written or URL-escaped.
func TestPGPasswordInDatabaseName(t *testing.T) {
	srv := pgtest.Shared(t)
	u, err := url.Parse(srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/db_" + srv.Password + "_x"
	p, err := NewPG(PGConfig{ConnString: u.String(), Env: "VOXFORM_PG"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, rerr := p.Read(context.Background())
	_, lerr := p.Lock(context.Background(), "apply")
	for _, err := range []error{rerr, lerr} {
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("want the server's refusal: %v", err)
		}
		if strings.Contains(err.Error(), srv.Password) || strings.Contains(err.Error(), u.String()) {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if strings.Contains(p.Describe(), srv.Password) {
		t.Errorf("Describe shows the password: %s", p.Describe())
	}
	// Escaped in the string, the password is found as written and as
	// escaped; so is the user information of a URL echoed.
	q := &PG{cfg: PGConfig{Env: "VOXFORM_PG"}, conf: p.conf}
	q.conf.ConnConfig.Password = "p@zq w/rd"
	for _, s := range []string{"p@zq w/rd", "p%40zq%20w%2Frd", "p%40zq+w%2Frd", "postgres://someone:other@h/db", "password='a b' host=h"} {
		if got := q.scrub("at " + s + " end"); strings.Contains(got, "zq") || strings.Contains(got, "other") || strings.Contains(got, "a b") {
			t.Errorf("scrub(%q) = %q", s, got)
		}
	}
}

// A row over the limit of a row is refused in the query, before the
// driver buffers it: the read allocates far less than the row, and the
// error names the row, escaped, and the bound. So is the header row, and
// a read past the state's bound.
func TestPGRowsBoundedInQuery(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	lk, rec := openPG(t, p)
	for _, a := range []string{"synthesis.a", "synthesis.b", "synthesis.c"} {
		if err := rec.Record(a, sampleResource(a)); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	lk.Unlock()
	ctx := context.Background()
	conn := sqlConn(t, url)
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	readErr := func() (error, uint64) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := p.Read(context.Background())
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatal("read")
		}
		return err, after.TotalAlloc - before.TotalAlloc
	}

	// Just over 64 MiB of JSON, made by the server (stored uncompressed,
	// which is quicker to write).
	exec(`ALTER TABLE voxform.resources ALTER COLUMN resource SET STORAGE EXTERNAL`)
	exec(`ALTER TABLE voxform.states ALTER COLUMN voxform_version SET STORAGE EXTERNAL`)
	exec(`UPDATE voxform.resources SET resource = json_build_object('kind', 'synthesis', 'pad', repeat('x', 64 << 20)) WHERE address = 'synthesis.b'`)
	err, alloc := readErr()
	if !strings.Contains(err.Error(), `resource "synthesis.b": a row of 67108909 bytes, more than 64 MiB, the limit of a row`) {
		t.Errorf("row: %v", err)
	}
	if alloc > 16<<20 {
		t.Errorf("the read allocated %d MiB for a row it refused", alloc>>20)
	}
	exec(`UPDATE voxform.resources SET resource = json_build_object('kind', 'synthesis') WHERE address = 'synthesis.b'`)

	// The header row too.
	exec(`UPDATE voxform.states SET voxform_version = repeat('v', 64 << 20)`)
	err, alloc = readErr()
	if !strings.Contains(err.Error(), "the row of workspace default in states: 67108900 bytes, more than 64 MiB, the limit of a row") || alloc > 16<<20 {
		t.Errorf("header (%d MiB allocated): %v", alloc>>20, err)
	}
	exec(`UPDATE voxform.states SET voxform_version = 'v'`)

	// A hostile address is named escaped.
	exec(`UPDATE voxform.resources SET address = E'synthesis.a\x1b[1A\x1b[2K', resource = json_build_object('kind', 'synthesis') WHERE address = 'synthesis.b'`)
	err, _ = readErr()
	if strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `resources["synthesis.a\x1b[1A\x1b[2K"]: not a voxform address`) {
		t.Errorf("address: %v", err)
	}
	exec(`UPDATE voxform.resources SET address = 'synthesis.b' WHERE address LIKE E'synthesis.a\x1b%'`)

	// The whole read is bounded as a state file is: here lowered to 1 MiB,
	// with three rows of 400 KiB.
	defer func(l int64) { pgReadLimit = l }(pgReadLimit)
	pgReadLimit = 1 << 20
	exec(`UPDATE voxform.resources SET resource = json_build_object('kind', 'synthesis', 'consent', repeat('x', 400 << 10))`)
	err, _ = readErr()
	if !strings.Contains(err.Error(), "more than 1 MiB at resource") || !strings.Contains(err.Error(), "the limit of a state") {
		t.Errorf("total: %v", err)
	}
}
