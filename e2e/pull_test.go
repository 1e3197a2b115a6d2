package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
)

// A fresh clone that only pulls, from a directory remote a teammate's
// apply filled, gets every output back and leaves voxform.state.json as
// committed ('git diff' shows nothing): the record of a restored resource
// keeps its history. A teammate who can write the remote then swaps the
// files of two entries of one kind: another fresh clone's pull writes
// neither, lists both as billed work left for apply, saying why, and
// still leaves the state as committed. Metadata an entry carries into a
// new project's state (a detected language holding an escape sequence)
// is refused.
func TestPullPutsBackWhatTheStateRecords(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	for _, example := range []string{"ivr-prompts", "call-transcripts"} {
		t.Run(example, func(t *testing.T) {
			remote := t.TempDir()
			withDirRemote := func(p *project) *project {
				p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
				return p
			}
			a := withDirRemote(newProject(t, example, e))
			if r := a.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			outputs := recordedOutputs(t, a)
			committed := a.readFile("voxform.state.json")

			c := withDirRemote(cloneWithoutOutputs(t, a, e, outputs))
			c.mustRun("pull")
			if got := c.readFile("voxform.state.json"); got != committed {
				t.Errorf("pull rewrote voxform.state.json:\n%s\nwas\n%s", got, committed)
			}
			sameOutputs(t, a, c, outputs)
			c.verify()

			x, y := swapEntries(t, remote, a)
			d := withDirRemote(cloneWithoutOutputs(t, a, e, outputs))
			r := d.mustRun("pull")
			for _, addr := range []string{x, y} {
				if !strings.Contains(r.stdout, addr+": ") || !strings.Contains(r.stdout, "not restored: the cached") {
					t.Errorf("pull does not list %s as refused:\n%s", addr, r)
				}
			}
			if got := d.readFile("voxform.state.json"); got != committed {
				t.Errorf("pull of forged entries rewrote voxform.state.json:\n%s", got)
			}
			for _, rel := range outputs {
				if _, err := os.Stat(d.path(rel)); err == nil && !sameFile(a, d, rel) {
					t.Errorf("pull wrote %s from a forged entry", rel)
				}
			}
		})
	}
}

// sameFile reports whether rel holds the same bytes in a and b.
func sameFile(a, b *project, rel string) bool {
	return a.readFile(rel) == b.readFile(rel)
}

// swapEntries swaps the files of the remote entries of the first two
// resources of one kind that p's state records, as a teammate who can
// write the remote may; it returns their addresses.
func swapEntries(t *testing.T, remote string, p *project) (string, string) {
	t.Helper()
	var st struct {
		Resources map[string]struct {
			Kind        string `json:"kind"`
			Fingerprint string `json:"fingerprint"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	addrs := make([]string, 0, len(st.Resources))
	for addr := range st.Resources {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	var pair []string
	for _, addr := range addrs {
		if len(pair) == 1 && st.Resources[addr].Kind != st.Resources[pair[0]].Kind {
			continue
		}
		if pair = append(pair, addr); len(pair) == 2 {
			break
		}
	}
	if len(pair) != 2 {
		t.Fatalf("no two resources of one kind in %v", addrs)
	}
	path := func(addr string) string {
		fp := st.Resources[addr].Fingerprint
		return filepath.Join(remote, "v1", "entries", fp[:2], fp+".json")
	}
	ex, ey := readEntry(t, path(pair[0])), readEntry(t, path(pair[1]))
	ex.Files, ey.Files = ey.Files, ex.Files
	writeEntry(t, path(pair[0]), ex)
	writeEntry(t, path(pair[1]), ey)
	return pair[0], pair[1]
}

func readEntry(t *testing.T, path string) *cache.Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e cache.Entry
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func writeEntry(t *testing.T, path string, e *cache.Entry) {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A new project asking for a transcription a teammate cached records the
// metadata the entry carries; a detected language holding an escape
// sequence is refused when planned, named by its field, the work left for
// apply (billed), and nothing is recorded.
func TestRestoreRefusesForgedMetadata(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	remote := t.TempDir()
	a := newProject(t, "call-transcripts", e)
	a.env = append(a.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	if r := a.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	var paths []string
	filepath.WalkDir(filepath.Join(remote, "v1", "entries"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Fatal("the remote holds no entries")
	}
	for _, p := range paths {
		en := readEntry(t, p)
		en.Meta.DetectedLanguage = "\x1b[2Khi-IN"
		writeEntry(t, p, en)
	}
	b := newProject(t, "call-transcripts", e)
	b.env = append(b.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	r := b.run("pull")
	// Refused when planned: listed as left for apply (billed), with why.
	if !strings.Contains(r.stdout, "Restored 0 resource(s)") || !strings.Contains(r.stdout, "not restored: ") ||
		!strings.Contains(r.stdout, "detected_language: character U+001B at byte 0 is not printable") {
		t.Fatalf("pull of entries with a forged detected language: %s", r)
	}
	if strings.Contains(r.stdout+r.stderr, "\x1b") {
		t.Errorf("the escape sequence reached the terminal: %q", r.stderr)
	}
	if st, err := os.ReadFile(b.path("voxform.state.json")); err == nil && strings.Contains(string(st), "hi-IN") && strings.Contains(string(st), `\u001b`) {
		t.Errorf("the forged detected language was recorded:\n%s", st)
	}
}
