package workspace_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

const importManifest = `
voices:
  v: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  menu:
    for_each: { main: "Main menu", help: "Help" }
    voice: v
    text: "${each.value}"
    output: "build/${each.key}.wav"
    audio_config: { container: wav, sample_rate: 16000 }
  help:
    voice: v
    text: "Help desk"
    output: build/desk.wav
    audio_config: { container: wav, sample_rate: 16000 }
`

// wav is a short WAV of rate Hz whose samples depend on seed.
func wav(t *testing.T, rate, seed int) []byte {
	t.Helper()
	var b bytes.Buffer
	f := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&b, f, 800); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		b.Write([]byte{byte(i * seed), byte(seed)})
	}
	return b.Bytes()
}

// importProject is a manifest directory of importManifest, its output
// cache in a directory of its own.
func importProject(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "voxform.yaml"), []byte(importManifest))
	ws := workspace.New(dir)
	ws.CacheDir = t.TempDir()
	return ws
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// importFiles imports files in one locked session.
func importFiles(t *testing.T, ws *workspace.Workspace, force bool, files ...workspace.ImportFile) ([]workspace.Imported, error) {
	t.Helper()
	s, err := ws.Lock(context.Background(), "import")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, ds := ws.Load(manifest.LoadOptions{})
	if m == nil {
		t.Fatalf("manifest: %v", ds)
	}
	done, err := s.Import(context.Background(), m, files, workspace.ImportOptions{Force: force})
	if cerr := s.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	return done, err
}

// planActions is the plan of ws's manifest against its state.
func planActions(t *testing.T, ws *workspace.Workspace) []*planner.Action {
	t.Helper()
	s, err := ws.Lock(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _ := ws.Load(manifest.LoadOptions{})
	p, err := s.Plan(context.Background(), m, planner.Options{Cache: planner.CacheLocal})
	if err != nil {
		t.Fatal(err)
	}
	return p.Actions
}

func readState(t *testing.T, ws *workspace.Workspace) *state.File {
	t.Helper()
	st, err := ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// An imported file is written to the output path, recorded under the
// desired request with origin imported, kept in the output cache and
// journalled as a take: the plan then has nothing to do for it.
func TestImportAdoptsWithoutChanges(t *testing.T) {
	ws := importProject(t)
	src := filepath.Join(t.TempDir(), "old main.wav")
	write(t, src, wav(t, 16000, 3))
	inPlace := wav(t, 16000, 5)
	write(t, filepath.Join(ws.Dir, "build/desk.wav"), inPlace)
	done, err := importFiles(t, ws, false,
		workspace.ImportFile{Address: `synthesis.menu["main"]`, Path: src},
		workspace.ImportFile{Address: "synthesis.help", Path: filepath.Join(ws.Dir, "build/desk.wav")})
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0].InPlace || !done[1].InPlace {
		t.Fatalf("imported %+v, want main copied and help in place", done)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/main.wav")); !bytes.Equal(b, wav(t, 16000, 3)) {
		t.Fatal("build/main.wav is not the imported file")
	}
	st := readState(t, ws)
	for _, addr := range []string{`synthesis.menu["main"]`, "synthesis.help"} {
		if r := st.Resources[addr]; r == nil || r.Origin != state.OriginImported || len(r.Outputs) != 1 {
			t.Fatalf("%s recorded as %+v, want imported", addr, r)
		}
	}
	for _, a := range planActions(t, ws) {
		if a.Address != `synthesis.menu["help"]` {
			t.Fatalf("plan after import: %s %s, want only the one not imported", a.Type, a.Address)
		}
	}
	takes, _, err := state.ReadTakes(ws.Dir, `synthesis.menu["main"]`)
	if err != nil || len(takes) != 1 || takes[0].Origin != state.OriginImported {
		t.Fatalf("takes journal: %+v, %v; want the imported take", takes, err)
	}
}

// Bad input is refused with the reason, and nothing is written or
// recorded, whichever file of the import it is in.
func TestImportRefusesAndChangesNothing(t *testing.T) {
	good := func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
		p := filepath.Join(ws.Dir, "legacy/main.wav")
		write(t, p, wav(t, 16000, 1))
		return workspace.ImportFile{Address: `synthesis.menu["main"]`, Path: p}
	}
	tests := []struct {
		name  string
		bad   func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile
		want  string
		after func(t *testing.T, ws *workspace.Workspace)
	}{
		{"not declared", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			return workspace.ImportFile{Address: `synthesis.menu["gone"]`, Path: good(t, ws).Path}
		}, "not declared", nil},
		{"format", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			p := filepath.Join(ws.Dir, "legacy/help.wav")
			write(t, p, wav(t, 8000, 2))
			return workspace.ImportFile{Address: `synthesis.menu["help"]`, Path: p}
		}, "8000 Hz", nil},
		{"not a file", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			return workspace.ImportFile{Address: `synthesis.menu["help"]`, Path: ws.Dir}
		}, "not a regular file", nil},
		{"too large", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			p := filepath.Join(ws.Dir, "legacy/huge.wav")
			write(t, p, nil)
			if err := os.Truncate(p, cache.MaxEntryContent+1); err != nil { // sparse: nothing is written
				t.Fatal(err)
			}
			return workspace.ImportFile{Address: `synthesis.menu["help"]`, Path: p}
		}, "cache.MaxEntryContent", nil},
		{"output path taken", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			write(t, filepath.Join(ws.Dir, "build/help.wav"), []byte("mine"))
			p := filepath.Join(ws.Dir, "legacy/help.wav")
			write(t, p, wav(t, 16000, 2))
			return workspace.ImportFile{Address: `synthesis.menu["help"]`, Path: p}
		}, "voxform did not make", func(t *testing.T, ws *workspace.Workspace) {
			if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/help.wav")); string(b) != "mine" {
				t.Fatal("the file at the output path was replaced")
			}
		}},
		{"twice", func(t *testing.T, ws *workspace.Workspace) workspace.ImportFile {
			return workspace.ImportFile{Address: `synthesis.menu["main"]`, Path: good(t, ws).Path}
		}, "both", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := importProject(t)
			_, err := importFiles(t, ws, false, good(t, ws), tc.bad(t, ws))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("import: %v, want an error with %q", err, tc.want)
			}
			if st := readState(t, ws); len(st.Resources) != 0 {
				t.Fatalf("state after a refused import: %v", st.Resources)
			}
			if _, err := os.Stat(filepath.Join(ws.Dir, "build/main.wav")); err == nil {
				t.Fatal("the good file was written though the import was refused")
			}
			if tc.after != nil {
				tc.after(t, ws)
			}
		})
	}
}

// A recorded address is adopted over only with force.
func TestImportRecordedNeedsForce(t *testing.T) {
	ws := importProject(t)
	p := filepath.Join(ws.Dir, "legacy/main.wav")
	write(t, p, wav(t, 16000, 1))
	f := workspace.ImportFile{Address: `synthesis.menu["main"]`, Path: p}
	if _, err := importFiles(t, ws, false, f); err != nil {
		t.Fatal(err)
	}
	write(t, p, wav(t, 16000, 9))
	if _, err := importFiles(t, ws, false, f); err == nil || !strings.Contains(err.Error(), "already recorded") {
		t.Fatalf("second import: %v, want refused as recorded", err)
	}
	if _, err := importFiles(t, ws, true, f); err != nil {
		t.Fatalf("import -force: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/main.wav")); !bytes.Equal(b, wav(t, 16000, 9)) {
		t.Fatal("-force did not adopt the new file")
	}
}

func TestMatchDir(t *testing.T) {
	ws := importProject(t)
	m, _ := ws.Load(manifest.LoadOptions{})
	dir := t.TempDir()
	for _, n := range []string{"menu_main.wav", "notes.txt"} {
		write(t, filepath.Join(dir, n), nil)
	}
	mp, err := workspace.CompileMatch("menu_{key}.wav")
	if err != nil {
		t.Fatal(err)
	}
	files, err := workspace.MatchDir(m, dir, mp)
	if err != nil || len(files) != 1 || files[0].Address != `synthesis.menu["main"]` || files[0].Path != filepath.Join(dir, "menu_main.wav") {
		t.Fatalf("MatchDir = %+v, %v", files, err)
	}
	// "help" is a key of menu and the name of a block: {block} decides.
	write(t, filepath.Join(dir, "x", "help.wav"), nil)
	amb, _ := workspace.CompileMatch("{key}.wav")
	if _, err := workspace.MatchDir(m, filepath.Join(dir, "x"), amb); err == nil || !strings.Contains(err.Error(), "{block}") {
		t.Fatalf("ambiguous key: %v, want the advice of {block}", err)
	}
	byBlock, _ := workspace.CompileMatch("{block}-{key}.wav")
	write(t, filepath.Join(dir, "y", "menu-help.wav"), nil)
	if files, err := workspace.MatchDir(m, filepath.Join(dir, "y"), byBlock); err != nil || len(files) != 1 || files[0].Address != `synthesis.menu["help"]` {
		t.Fatalf("{block}-{key}: %+v, %v", files, err)
	}
	// A link could lead anywhere: refused, as a key nothing declares.
	os.Symlink("/etc/passwd", filepath.Join(dir, "menu_link.wav"))
	write(t, filepath.Join(dir, "menu_nothing.wav"), nil)
	_, err = workspace.MatchDir(m, dir, mp)
	if err == nil || !strings.Contains(err.Error(), "menu_link.wav: not a regular file") || !strings.Contains(err.Error(), "menu_nothing.wav: names no declared synthesis") {
		t.Fatalf("MatchDir with a link and a stray key: %v", err)
	}
	for _, bad := range []string{"main.wav", "{key}{key}.wav", "sub/{key}.wav"} {
		if _, err := workspace.CompileMatch(bad); err == nil {
			t.Errorf("CompileMatch(%q) accepted", bad)
		}
	}
}

// use runs Use in one locked session.
func use(t *testing.T, ws *workspace.Workspace, addr, sel string) (workspace.TakeRow, bool, error) {
	t.Helper()
	s, err := ws.Lock(context.Background(), "use")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, ds := ws.Load(manifest.LoadOptions{})
	if m == nil {
		t.Fatalf("manifest: %v", ds)
	}
	row, changed, err := s.Use(context.Background(), m, addr, sel)
	if cerr := s.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	return row, changed, err
}

// twoTakes makes two takes of synthesis.menu["main"] by applying two of
// its texts in turn against an emulator (an import is never kept in the
// output cache: only the service's takes can be put back), and returns
// their bytes; the manifest is left declaring the second text.
func twoTakes(t *testing.T, ws *workspace.Workspace) (first, second []byte) {
	t.Helper()
	p := newProject(t) // for its emulator and client
	p.ws = ws
	applyText := func(text string) []byte {
		write(t, filepath.Join(ws.Dir, "voxform.yaml"), []byte(strings.Replace(importManifest, `main: "Main menu"`, `main: "`+text+`"`, 1)))
		plan, s := p.plan(planner.Options{Cache: planner.CacheLocal})
		p.apply(s, plan)
		b, err := os.ReadFile(filepath.Join(ws.Dir, "build/main.wav"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return applyText("Main menu"), applyText("Main menu, please choose")
}

// use puts an earlier take back byte for byte from the output cache, for
// the current request: the plan then has nothing to do for it.
func TestUsePutsTakeBack(t *testing.T) {
	ws := importProject(t)
	first, _ := twoTakes(t, ws)
	addr := `synthesis.menu["main"]`
	fp := readState(t, ws).Resources[addr].Fingerprint
	row, changed, err := use(t, ws, addr, "1")
	if err != nil || !changed || row.N != 1 {
		t.Fatalf("use 1: %+v, %v, %v", row, changed, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/main.wav")); !bytes.Equal(b, first) {
		t.Fatal("use did not put the first take back")
	}
	r := readState(t, ws).Resources[addr]
	if r.Origin != state.OriginTake || r.Details().Take != row.Fingerprint || r.Fingerprint != fp {
		t.Fatalf("recorded %+v, want origin take of %.12s under %.12s", r, row.Fingerprint, fp)
	}
	for _, a := range planActions(t, ws) {
		if a.Address == addr {
			t.Fatalf("plan after use: %s %s", a.Type, a.Address)
		}
	}
	if _, changed, err := use(t, ws, addr, "1"); err != nil || changed {
		t.Fatalf("use of the current take again: changed %v, %v", changed, err)
	}
	// A take is named by a prefix of its fingerprint too.
	if _, changed, err := use(t, ws, addr, row.Fingerprint[:8]); err != nil || changed {
		t.Fatalf("use of the current take by its fingerprint: changed %v, %v", changed, err)
	}
}

func TestUseRefuses(t *testing.T) {
	ws := importProject(t)
	_, second := twoTakes(t, ws)
	addr := `synthesis.menu["main"]`
	if _, _, err := use(t, ws, addr, "3"); err == nil || !strings.Contains(err.Error(), "no take 3") {
		t.Fatalf("use 3: %v", err)
	}
	if _, _, err := use(t, ws, addr, "zz"); err == nil || !strings.Contains(err.Error(), "hex digits") {
		t.Fatalf("use zz: %v", err)
	}
	// The declared format is no longer the take's.
	m := strings.Replace(importManifest, "container: wav, sample_rate: 16000 }\n  help:", "container: wav, sample_rate: 8000 }\n  help:", 1)
	write(t, filepath.Join(ws.Dir, "voxform.yaml"), []byte(m))
	if _, _, err := use(t, ws, addr, "1"); err == nil || !strings.Contains(err.Error(), "8000 Hz") {
		t.Fatalf("use of a take of another format: %v", err)
	}
	write(t, filepath.Join(ws.Dir, "voxform.yaml"), []byte(importManifest))
	// The cache lost it.
	if err := os.RemoveAll(ws.CacheDir); err != nil {
		t.Fatal(err)
	}
	if _, _, err := use(t, ws, addr, "1"); err == nil || !strings.Contains(err.Error(), "no longer holds take 1") {
		t.Fatalf("use of a take the cache lost: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/main.wav")); !bytes.Equal(b, second) {
		t.Fatal("a refused use changed the output")
	}
	if r := readState(t, ws).Resources[addr]; r.Origin != "" {
		t.Fatalf("a refused use changed the record: %+v", r)
	}
}

// Apply adds a take to the journal for each output it makes, and none
// for a record whose outputs did not change.
func TestApplyJournalsTakes(t *testing.T) {
	p := newProject(t)
	p.ws.CacheDir = t.TempDir()
	applyAll := func() {
		plan, s := p.plan(planner.Options{Cache: planner.CacheLocal})
		p.apply(s, plan)
	}
	applyAll()
	write(t, filepath.Join(p.ws.Dir, "voxform.yaml"), []byte(strings.Replace(hello, "नमस्ते", "नमस्कार", 1)))
	applyAll()
	// Deleted, then restored from the cache: the same bytes, no new take.
	os.Remove(filepath.Join(p.ws.Dir, "out/hello.wav"))
	applyAll()
	takes, _, err := state.ReadTakes(p.ws.Dir, "synthesis.hello")
	if err != nil || len(takes) != 2 || takes[0].Fingerprint == takes[1].Fingerprint || takes[1].Origin != "" {
		t.Fatalf("takes journal after two texts and a restore: %+v, %v; want two takes", takes, err)
	}
	cur := readState(t, p.ws).Resources["synthesis.hello"]
	if takes[1].Fingerprint != cur.Fingerprint || takes[1].Digest != state.OutputsDigest(cur.Outputs) {
		t.Fatalf("the last take %+v is not the recorded output %+v", takes[1], cur)
	}
}

// A take put back at an output path the manifest moved since leaves no
// stale copy at the path recorded before.
func TestUseAtAMovedPathRemovesTheOldOutput(t *testing.T) {
	ws := importProject(t)
	first, _ := twoTakes(t, ws)
	write(t, filepath.Join(ws.Dir, "voxform.yaml"), []byte(strings.Replace(importManifest, `"build/${each.key}.wav"`, `"build/v2/${each.key}.wav"`, 1)))
	if _, _, err := use(t, ws, `synthesis.menu["main"]`, "1"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir, "build/v2/main.wav")); !bytes.Equal(b, first) {
		t.Fatal("the take is not at the declared path")
	}
	if _, err := os.Stat(filepath.Join(ws.Dir, "build/main.wav")); err == nil {
		t.Fatal("the output at the path recorded before was left behind")
	}
}
