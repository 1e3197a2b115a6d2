package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/state"
)

// state list reads the addresses and not the resources: a state of 10,000
// is listed allocating little more than its file (decoding every resource,
// and saving the decoded snapshot, took some four times the file).
func TestStateListReadsOnlyAddresses(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	f := state.New()
	at := time.Date(2026, 11, 27, 14, 24, 12, 63315972, time.UTC)
	for i := range 10_000 {
		f.Resources[fmt.Sprintf(`synthesis.p["%05d"]`, i)] = &state.Resource{
			Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fmt.Sprintf("%064d", i),
			Request: map[string]any{"text": fmt.Sprintf("prompt %d", i), "model": "tts-v3.0", "voice": "Shivani",
				"audio_config": map[string]any{"container": "raw", "sample_rate": 8000}},
			Outputs:   []state.Output{{Path: fmt.Sprintf("build/%05d.raw", i), SHA256: fmt.Sprintf("%064x", i), Size: 22850}},
			CreatedAt: at, UpdatedAt: at,
		}
	}
	out, err := os.Create(filepath.Join(env.Dir, state.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Encode(out); err != nil {
		t.Fatal(err)
	}
	fi, _ := out.Stat()
	out.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := runCmd(env, "state", "list")
	runtime.ReadMemStats(&after)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 10_000 || lines[0] != `synthesis.p["00000"]` || lines[9999] != `synthesis.p["09999"]` {
		t.Fatalf("%d lines: %q ... %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*uint64(fi.Size()) {
		t.Errorf("listing a state file of %d MB allocated %d MB", fi.Size()>>20, alloc>>20)
	}
}
