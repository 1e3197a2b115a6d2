package state

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ListAddresses gives what Read gives, a journal folded in, and refuses
// what Read refuses but for the contents of the resources, which it does
// not read: a hostile address (escaped in the error), a moved state, a
// newer version, a resource that is not an object, a damaged file.
func TestListAddressesAsRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	for i := range 30 {
		if err := rec.Record(fmt.Sprintf(`synthesis.p["%02d \"q\" \\ x"]`, i), sampleResource("t")); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	// A journal a process that died left: one more, one fewer.
	_, lk, rec = openLocked(t, dir)
	rec.Record("synthesis.journalled", sampleResource("j"))
	rec.Remove(`synthesis.p["00 \"q\" \\ x"]`)
	lk.Unlock() // not closed: the journal stays
	want, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ListAddresses(ctx, b)
	if err != nil || !slices.Equal(got, want.Addresses()) || !slices.Contains(got, "synthesis.journalled") || len(got) != 30 {
		t.Fatalf("got %d %v, %v; want %v", len(got), got, err, want.Addresses())
	}
	if got, err := ListAddresses(ctx, NewLocal(t.TempDir())); err != nil || len(got) != 0 {
		t.Errorf("no state: %v, %v", got, err)
	}

	path := filepath.Join(dir, StateFileName)
	os.Remove(path + JournalSuffix)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"hostile address", `"synthesis.p[\"01`, `"synthesis.p\u001b[1A[\"01`, `\x1b[1A`},
		{"not an object", `"synthesis.p[\"01 \\\"q\\\" \\\\ x\"]": {`, `"synthesis.p[\"01 \\\"q\\\" \\\\ x\"]": [1], "x": {`, "resources"},
		{"null", `"synthesis.p[\"01 \\\"q\\\" \\\\ x\"]": {`, `"synthesis.p[\"01 \\\"q\\\" \\\\ x\"]": null, "x": {`, "null"},
		{"newer", `"version": 1`, `"version": 9`, "newer"},
		{"moved", `"serial"`, `"moved_to": {"backend": "pg", "where": "there", "at": "2026-11-22T05:00:00Z", "who": "me"}, "serial"`, "migrated to there"},
		{"hostile written path", `"serial"`, `"written": [{"path": "../victim", "address": "synthesis.a", "sha256": "00"}], "serial"`, "victim"},
		{"damaged", `"lineage"`, `"lineage`, "read state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(string(good), tc.from, tc.to, 1)
			if bad == string(good) {
				t.Fatalf("%q not in the state", tc.from)
			}
			if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			_, rerr := b.Read(ctx)
			got, err := ListAddresses(ctx, b)
			if err == nil || rerr == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("list: %v, %v (read: %v)", got, err, rerr)
			}
		})
	}
}

// unquoteKey reads a key as encoding/json does, or leaves it to it.
func TestUnquoteKey(t *testing.T) {
	for _, s := range []string{`""`, `"a"`, `"synthesis.p[\"k\"]"`, `"\\\\"`, `"a\\\"b"`, `"\n"`, `"\u0041"`, `"é"`, "\"\x01\"", `"\/"`, `"x\\"`} {
		var want string
		werr := json.Unmarshal([]byte(s), &want)
		got, ok := unquoteKey([]byte(s))
		if ok && (werr != nil || got != want) {
			t.Errorf("%s: %q, encoding/json %q (%v)", s, got, want, werr)
		}
	}
}

// FuzzSkim: whatever Decode reads, ListAddresses lists the same
// addresses; never a panic.
func FuzzSkim(f *testing.F) {
	f.Add([]byte(`{"version": 1, "lineage": "x", "serial": 3, "resources": {"synthesis.a": {"kind": "synthesis"}, "synthesis.b[\"\\\"\"]": {}}}`))
	f.Add([]byte(`{"version": 1, "resources": {"synthesis.a": {}, "synthesis.a": {"kind": "x"}}}`))
	f.Add([]byte(`{"resources": {"a": null}, "version": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sk, ok := skimState(data)
		d, err := Decode(bytes.NewReader(data))
		if ok && err == nil && !slices.Equal(sk.Addresses(), d.Addresses()) {
			t.Fatalf("skimmed %v, decoded %v", sk.Addresses(), d.Addresses())
		}
		if ok {
			for _, a := range sk.Addresses() {
				if CheckAddress(a) != nil {
					t.Fatalf("skimmed %q", a)
				}
			}
		}
	})
}

// state list of a large state does not read the file into memory: the
// file is mapped, and what is allocated is the addresses and their map,
// a small part of the file (issue 26's L5: reading 100 MB into a new
// buffer took half a second of CPU, faulting in its pages).
func TestListAddressesMapsTheFile(t *testing.T) {
	dir := t.TempDir()
	f := New()
	for i := range 5000 {
		f.Resources[fmt.Sprintf(`synthesis.menu["p%05d"]`, i)] = sampleResource(strings.Repeat("a long prompt text ", 20))
	}
	data, err := MarshalSorted(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewLocal(dir)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := ListAddresses(context.Background(), b)
	runtime.ReadMemStats(&after)
	if err != nil || !slices.Equal(got, f.Addresses()) {
		t.Fatalf("listed %d, %v; want %d", len(got), err, len(f.Resources))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(data))/2 {
		t.Errorf("listing a state file of %d bytes allocated %d bytes", len(data), alloc)
	}
}

// A mapped state file cut short under the skim (another program
// truncating it in place) faults; the fault reads as a file not of the
// skimmed shape, for Read to report, and the process goes on.
func TestSkimMappedFileCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), StateFileName)
	f := New()
	for i := range 200 {
		f.Resources[fmt.Sprintf("synthesis.p%03d", i)] = sampleResource("t")
	}
	data, err := MarshalSorted(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	m, err := unix.Mmap(int(fh.Fd()), 0, len(data), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if sk := skimMapped(m); sk == nil || len(sk.Resources) != 200 {
		t.Fatalf("whole file: %v", sk)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if sk := skimMapped(m); sk != nil {
		t.Errorf("file cut short: skimmed %d resources", len(sk.Resources))
	}
}

// A state's entries are checked without sorting its addresses when they
// pass (100,000 took tens of milliseconds of every read and list), and a
// refusal still names the first offender in the file's order, whatever
// the map's.
func TestCheckEntriesSortsOnlyToRefuse(t *testing.T) {
	f := New()
	for i := range 1000 {
		f.Resources[fmt.Sprintf(`synthesis.menu["p%05d"]`, i)] = sampleResource("t")
	}
	if n := testing.AllocsPerRun(5, func() {
		if err := f.checkEntries(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("checking 1,000 good entries allocated %v times", n)
	}
	bad := func(p string) *Resource {
		r := sampleResource("t")
		r.Outputs = []Output{{Path: p, SHA256: "ff"}}
		return r
	}
	f.Resources[`synthesis.menu["p00900"]`] = bad("../b")
	f.Resources[`synthesis.menu["p00100"]`] = bad("../a")
	for range 20 {
		if err := f.checkEntries(); err == nil || !strings.Contains(err.Error(), `p00100`) {
			t.Fatalf("two bad entries: %v", err)
		}
	}
}

// A file system that cannot map the state file (some FUSE and network
// mounts) lists it as a read would: the mapping is only a shortcut.
func TestListAddressesWithoutMapping(t *testing.T) {
	dir := t.TempDir()
	f := New()
	for i := range 3 {
		f.Resources[fmt.Sprintf("synthesis.p%d", i)] = sampleResource("t")
	}
	data, err := MarshalSorted(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(m func(int, int64, int, int, int) ([]byte, error)) { mapFile = m }(mapFile)
	mapFile = func(int, int64, int, int, int) ([]byte, error) { return nil, unix.ENODEV }
	got, err := ListAddresses(context.Background(), NewLocal(dir))
	if err != nil || len(got) != 3 {
		t.Fatalf("ListAddresses without a mapping: %v, %v; want 3 addresses", got, err)
	}
}
