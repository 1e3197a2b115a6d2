package schema_test

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCorpus loads every manifest directory under testdata/invalid and
// testdata/valid and compares the rendered diagnostics with the case's
// want.golden. Each invalid case must give at least one positioned error;
// each valid case must give none. A case may hold vars.txt (one -var
// NAME=VALUE per line), varfiles.txt (one -var-file per line) and
// fixtures.txt (lines "PATH RATE SECONDS [SIZE]": WAV files generated
// before loading, so that the corpus holds no audio; SIZE pads the file to
// that many bytes with a sparse hole, for size limits) and profile.txt (the
// service profile; the corpus speaks to the documented one otherwise).
//
// conformance: TTS-001, TTS-004, TTS-005, TTS-007, TTS-008, TTS-011, TTS-012, TTS-013, TTS-014,
// TTS-015, TTS-017, TTS-019, TTS-022, TTS-025, TTS-027, TTS-030, TTS-032, TTS-033, TTS-040,
// TTS-041, TTS-042, TTS-043, TTS-044, TTS-045, TTS-046, TTS-047, TTS-048, TTS-051, TTS-052,
// TTS-056, TTS-057, TTS-058, VC-005, VC-006, VC-007, VC-008, VC-009, VC-012, VC-013, STT-001, STT-030, STT-033,
// STT-034, RT-001, RT-012, OB-001, BJ-001, BJ-002, BJ-004, BJ-006, BJ-009, BJ-010, BJ-020,
// BJ-063, BJ-068, BJ-090, BJ-101, ERR-028, ERR-029
func TestCorpus(t *testing.T) {
	for _, kind := range []string{"invalid", "valid"} {
		dirs, err := filepath.Glob(filepath.Join("testdata", kind, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no %s cases: %v", kind, err)
		}
		for _, dir := range dirs {
			t.Run(kind+"/"+filepath.Base(dir), func(t *testing.T) {
				t.Parallel()
				got, ds := runCase(t, dir)
				goldenPath := filepath.Join(dir, "want.golden")
				if *update {
					if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(goldenPath)
				if err != nil {
					t.Fatalf("read golden (run with -update): %v", err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("diagnostics differ (-want +got):\n%s", diff)
				}
				switch kind {
				case "invalid":
					if !ds.HasErrors() {
						t.Errorf("no error for an invalid manifest")
					}
					for _, d := range ds {
						// -var flags and unreadable -var-files have no line.
						if d.Pos.File == "" || (d.Pos.Line == 0 && !strings.HasPrefix(d.Pos.File, "-var") && !strings.HasSuffix(d.Pos.File, ".json")) {
							t.Errorf("diagnostic without a position: %s", d)
						}
					}
				case "valid":
					if ds.HasErrors() {
						t.Errorf("errors for a valid manifest:\n%s", got)
					}
				}
			})
		}
	}
}

// runCase copies a case into a temporary directory, generates its audio
// fixtures, loads it and renders its diagnostics.
func runCase(t *testing.T, dir string) (string, manifest.Diagnostics) {
	t.Helper()
	_, ds := loadCase(t, dir)
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String(), ds
}

// loadCase copies a case into a temporary directory, generates its audio
// fixtures and loads it.
func loadCase(t *testing.T, dir string) (*manifest.Manifest, manifest.Diagnostics) {
	t.Helper()
	tmp := t.TempDir()
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(tmp, "want.golden"))
	// The corpus holds the documents' rules: its cases speak to the
	// documented profile unless profile.txt names another.
	profile := "documented"
	if p := readLines(t, filepath.Join(tmp, "profile.txt")); len(p) > 0 {
		profile = p[0]
	}
	opts := manifest.LoadOptions{Environ: []string{"VOXFORM_VAR_from_env=env-value", "VOXFORM_PROFILE=" + profile}}
	opts.Vars = readLines(t, filepath.Join(tmp, "vars.txt"))
	opts.VarFiles = readLines(t, filepath.Join(tmp, "varfiles.txt"))
	for _, line := range readLines(t, filepath.Join(tmp, "fixtures.txt")) {
		f := strings.Fields(line)
		rate, _ := strconv.Atoi(f[1])
		secs, _ := strconv.ParseFloat(f[2], 64)
		path := filepath.Join(tmp, f[0])
		writeWAV(t, path, rate, time.Duration(secs*float64(time.Second)))
		if len(f) > 3 {
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				t.Fatalf("fixtures.txt: %q: %v", line, err)
			}
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, aux := range []string{"vars.txt", "varfiles.txt", "fixtures.txt", "profile.txt"} {
		os.Remove(filepath.Join(tmp, aux))
	}
	return manifest.Load(tmp, opts, schema.Validator{})
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// writeWAV writes a 16-bit mono WAV of the given rate and duration. The
// samples are a sparse hole of zeros, so hours of audio cost nothing.
func writeWAV(t testing.TB, path string, rate int, d time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	data := int64(d.Seconds()*float64(rate)) * 2
	if err := audio.WriteWAVHeader(f, format, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(audio.WAVHeaderSize(format)) + data); err != nil {
		t.Fatal(err)
	}
}
