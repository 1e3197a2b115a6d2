package state

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxform/voxform/internal/pgtest"
)

// pgReads records the reads of resources the pg backend makes.
func pgReads(t *testing.T) *[]string {
	var reads []string
	testHookPGRead = func(rows int, since bool) { reads = append(reads, fmt.Sprintf("%d since=%v", rows, since)) }
	t.Cleanup(func() { testHookPGRead = nil })
	return &reads
}

// A reader that keeps a snapshot fetches only the rows written and removed
// since it was read, by voxform or by hand, and reads the same state as a
// reader without one; a snapshot copied into another project, or of an
// earlier epoch (the state replaced whole), is not used.
func TestPGSnapshotReadsChangesOnly(t *testing.T) {
	url := pgtest.Database(t)
	n := snapshotMinResources + 10
	local := NewLocal(t.TempDir())
	src := New()
	for i := range n {
		src.Resources[fmt.Sprintf(`synthesis.p["%d"]`, i)] = sampleResource(fmt.Sprintf("text %d", i))
	}
	var rec *Recorder
	lk, err := local.Lock(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := local.replace(context.Background(), lk, src); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	writer := newPG(t, url, "", 0)
	if _, err := Migrate(context.Background(), local, writer); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	reader, err := NewPG(PGConfig{ConnString: url, Env: "VOXFORM_PG", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	reads := pgReads(t)
	same := func(what string) {
		t.Helper()
		got, err := reader.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, err := writer.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(encoded(t, got), encoded(t, want)) {
			t.Errorf("%s: the reader with a snapshot reads %d resources, the writer %d; states differ", what, len(got.Resources), len(want.Resources))
		}
	}
	same("first read")
	*reads = nil
	same("nothing changed")
	if want := []string{"0 since=true", fmt.Sprintf("%d since=false", n)}; fmt.Sprint(*reads) != fmt.Sprint(want) {
		t.Errorf("reads with nothing changed: %v, want %v (the reader's, then the writer's)", *reads, want)
	}

	lk, rec = openPG(t, writer)
	rec.Record(`synthesis.p["1"]`, sampleResource("changed"))
	rec.Record("synthesis.new", sampleResource("new"))
	rec.Remove(`synthesis.p["2"]`, `synthesis.p["3"]`)
	rec.Record(`synthesis.p["3"]`, sampleResource("back again"))
	rec.Close()
	lk.Unlock()
	ctx := context.Background()
	conn := sqlConn(t, url)
	for _, q := range []string{ // by hand
		`UPDATE voxform.resources SET resource = replace(resource::text, 'text 4"', 'by hand"')::json WHERE address = 'synthesis.p["4"]'`,
		`DELETE FROM voxform.resources WHERE address = 'synthesis.p["5"]'`,
	} {
		if tag, err := conn.Exec(ctx, q); err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("%s: %v, %v", q, tag, err)
		}
	}
	*reads = nil
	same("after changes")
	// p[1], new, p[3] and p[4] written, p[2] and p[5] removed.
	if (*reads)[0] != "6 since=true" {
		t.Errorf("read after changes: %v, want the 6 rows changed since the snapshot", *reads)
	}

	other := filepath.Join(t.TempDir(), CacheDirName)
	os.Mkdir(other, 0o755)
	copyFile(t, filepath.Join(dir, CacheDirName, reader.snapshotName()), filepath.Join(other, reader.snapshotName()))
	copied, err := NewPG(PGConfig{ConnString: url, Env: "VOXFORM_PG", Dir: filepath.Dir(other)})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	*reads = nil
	if _, err := copied.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	n = n + 1 - 2 // new added, p[2] and p[5] removed
	if (*reads)[0] != fmt.Sprintf("%d since=false", n) {
		t.Errorf("read with a copied snapshot: %v, want every row", *reads)
	}

	if _, err := Migrate(context.Background(), writer, local); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(context.Background(), local, writer); err != nil { // replaced whole: another epoch
		t.Fatal(err)
	}
	*reads = nil
	same("after the state was replaced")
	if (*reads)[0] != fmt.Sprintf("%d since=false", n) {
		t.Errorf("read after the state was replaced: %v, want every row", *reads)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tables of schema version 1 (before the snapshot's columns) are brought to
// version 2 by the next voxform that opens them, their rows kept.
func TestPGSchemaUpgrade(t *testing.T) {
	url := pgtest.Database(t)
	p := newPG(t, url, "", 0)
	lk, rec := openPG(t, p)
	rec.Record("synthesis.a", sampleResource("a"))
	rec.Close()
	lk.Unlock()
	ctx := context.Background()
	conn := sqlConn(t, url)
	for _, q := range []string{
		`DROP TRIGGER stamp ON voxform.resources`, `DROP TRIGGER note_removed ON voxform.resources`,
		`DROP FUNCTION voxform.stamp()`, `DROP FUNCTION voxform.note_removed()`,
		`DROP TABLE voxform.removed`, `ALTER TABLE voxform.resources DROP COLUMN tx`, `ALTER TABLE voxform.states DROP COLUMN epoch`,
		`UPDATE voxform.meta SET value = '1' WHERE key = 'schema_version'`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	again := newPG(t, url, "", 0)
	lk, rec = openPG(t, again)
	if err := rec.Remove("synthesis.a"); err != nil {
		t.Fatal(err)
	}
	rec.Record("synthesis.b", sampleResource("b"))
	rec.Close()
	lk.Unlock()
	f, err := again.Read(context.Background())
	if err != nil || fmt.Sprint(f.Addresses()) != "[synthesis.b]" {
		t.Fatalf("read after the upgrade: %v, %v", f.Addresses(), err)
	}
	var version string
	var removed int
	if err := conn.QueryRow(ctx, `SELECT (SELECT value FROM voxform.meta WHERE key = 'schema_version'), (SELECT count(*) FROM voxform.removed)`).Scan(&version, &removed); err != nil || version != "2" || removed != 1 {
		t.Errorf("after the upgrade: schema version %q, %d removals, %v; want 2 and 1", version, removed, err)
	}
}
