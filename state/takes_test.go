package state

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleTake(addr string, n int) Take {
	sha := strings.Repeat(string(rune('a'+n%6)), 64)
	r := &Resource{Fingerprint: strings.Repeat("1", 63) + string(rune('0'+n%10)),
		Outputs: []Output{{Path: "build/a.wav", SHA256: sha, Size: 44}}}
	return TakeOf(addr, r, time.Date(2026, 1, 2, 3, 4, n, 0, time.UTC))
}

func TestTakesJournalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	j := NewTakesJournal(dir)
	for i := range 3 {
		if err := j.Append(sampleTake(`synthesis.a["k"]`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Append(sampleTake("synthesis.b", 9)); err != nil {
		t.Fatal(err)
	}
	got, skipped, err := ReadTakes(dir, `synthesis.a["k"]`)
	if err != nil || skipped != 0 || len(got) != 3 {
		t.Fatalf("ReadTakes = %d takes, %d skipped, %v; want 3, 0, nil", len(got), skipped, err)
	}
	if !got[1].Same(sampleTake(`synthesis.a["k"]`, 1)) || got[1].Digest != OutputsDigest([]Output{{Path: "build/a.wav", SHA256: strings.Repeat("b", 64), Size: 44}}) {
		t.Fatalf("take 2 read back as %+v", got[1])
	}
}

// A torn last line (a process killed mid-write), a line over the bound,
// and lines that are not takes are skipped, not fatal.
func TestTakesJournalToleratesBadLines(t *testing.T) {
	dir := t.TempDir()
	j := NewTakesJournal(dir)
	if err := j.Append(sampleTake("synthesis.a", 1)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, CacheDirName, TakesFileName)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"address":"synthesis.a","x":"` + strings.Repeat("y", MaxTakeLine) + `"}` + "\n"
	f.WriteString(long + `{"address":"synthesis.a","fingerprint":"nope"}` + "\n" + `{"address":"synthesis.a","finger`)
	f.Close()
	got, skipped, err := ReadTakes(dir, "synthesis.a")
	if err != nil || len(got) != 1 || skipped != 3 {
		t.Fatalf("ReadTakes = %d takes, %d skipped, %v; want 1, 3, nil", len(got), skipped, err)
	}
}

// The journal is never reached through a link: a .voxform/ that is a
// symbolic link is refused, and so is a takes.jsonl that is one.
func TestTakesJournalNeverFollowsLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, CacheDirName)); err != nil {
		t.Fatal(err)
	}
	if err := NewTakesJournal(dir).Append(sampleTake("synthesis.a", 1)); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Append through a linked .voxform: %v, want refused", err)
	}
	dir2 := t.TempDir()
	os.Mkdir(filepath.Join(dir2, CacheDirName), 0o755)
	target := filepath.Join(elsewhere, "target")
	os.WriteFile(target, nil, 0o644)
	if err := os.Symlink(target, filepath.Join(dir2, CacheDirName, TakesFileName)); err != nil {
		t.Fatal(err)
	}
	if err := NewTakesJournal(dir2).Append(sampleTake("synthesis.a", 1)); err == nil {
		t.Fatal("Append to a linked takes.jsonl succeeded")
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Fatalf("the link's target was written: %q", b)
	}
}

// Past MaxTakesBytes the oldest lines go: the journal stays bounded and
// keeps the newest takes.
func TestTakesJournalIsBounded(t *testing.T) {
	dir := t.TempDir()
	j := NewTakesJournal(dir)
	if err := j.Append(sampleTake("synthesis.old", 1)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, CacheDirName, TakesFileName)
	line, _ := os.ReadFile(p)
	filler := bytes.Repeat(line, MaxTakesBytes/len(line)+1)
	os.WriteFile(p, filler, 0o644)
	if err := j.Append(sampleTake("synthesis.new", 2)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Size() > MaxTakesBytes/2+int64(2*len(line)) {
		t.Fatalf("journal of %d bytes after the bound was passed (%v)", st.Size(), err)
	}
	if got, _, _ := ReadTakes(dir, "synthesis.new"); len(got) != 1 {
		t.Fatalf("the newest take was lost: %v", got)
	}
}

// An origin no command records is refused on read, as the other records
// are.
func TestDecodeRefusesUnknownOrigin(t *testing.T) {
	fp := strings.Repeat("a", 64)
	for _, tc := range []struct{ name, res, want string }{
		{"unknown", `{"kind":"synthesis","status":"complete","fingerprint":"` + fp + `","origin":"stolen","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`, "origin"},
		{"take without fingerprint", `{"kind":"synthesis","status":"complete","fingerprint":"` + fp + `","origin":"take","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`, "take"},
		{"take of an import", `{"kind":"synthesis","status":"complete","fingerprint":"` + fp + `","origin":"imported","take":"` + fp + `","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`, "take"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(`{"version": 1, "lineage": "x", "resources": {"synthesis.a": ` + tc.res + `}}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode error = %v, want one naming %s", err, tc.want)
			}
		})
	}
	ok := `{"kind":"synthesis","status":"complete","fingerprint":"` + fp + `","origin":"take","take":"` + fp + `","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
	if _, err := Decode(strings.NewReader(`{"version": 1, "lineage": "x", "resources": {"synthesis.a": ` + ok + `}}`)); err != nil {
		t.Fatalf("a take's record refused: %v", err)
	}
}

func TestOutputsDigestLeavesDeliveredOut(t *testing.T) {
	a := Output{Path: "a.wav", SHA256: strings.Repeat("a", 64)}
	d := Output{Path: "a.ulaw", SHA256: strings.Repeat("b", 64), Format: "deliver:telephony", Delivery: &Delivery{Profile: "telephony"}}
	if OutputsDigest([]Output{a, d}) != OutputsDigest([]Output{a}) {
		t.Fatal("a delivered output changes the digest")
	}
	b := a
	b.SHA256 = strings.Repeat("c", 64)
	if OutputsDigest([]Output{a}) == OutputsDigest([]Output{b}) || OutputsDigest([]Output{a, b}) != OutputsDigest([]Output{b, a}) {
		t.Fatal("the digest is not of the sorted outputs' bytes")
	}
}

// The journal is opened and checked once, at the first Append, and kept
// open until Close: later appends of an apply write to the file opened
// then (renamed away meanwhile here, to tell), not to a file opened
// again; after Close the next Append opens the journal anew.
func TestTakesJournalOpensOnce(t *testing.T) {
	dir := t.TempDir()
	j := NewTakesJournal(dir)
	if err := j.Append(sampleTake("synthesis.a", 1)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, CacheDirName, TakesFileName)
	moved := filepath.Join(dir, CacheDirName, "moved.jsonl")
	if err := os.Rename(p, moved); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sampleTake("synthesis.b", 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("the second Append opened the journal again")
	}
	if b, _ := os.ReadFile(moved); bytes.Count(b, []byte("\n")) != 2 {
		t.Fatalf("the open journal holds %q, want both lines", b)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sampleTake("synthesis.c", 3)); err != nil {
		t.Fatal(err)
	}
	if got, _, err := ReadTakes(dir, ""); err != nil || len(got) != 1 || got[0].Address != "synthesis.c" {
		t.Fatalf("after Close: %v, %v; want the one take appended since", got, err)
	}
	j.Close()
}
