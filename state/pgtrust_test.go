package state

import (
	"net/url"
	"os"
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
	if _, err := p.Read(); err != nil {
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
	_, rerr := p.Read()
	_, lerr := p.Lock("apply")
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
