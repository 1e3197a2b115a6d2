package planner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestRecordingTooLarge: a recording over MaxRecordingBytes is refused by
// the plan at its field, naming the bound, before it is hashed.
func TestRecordingTooLarge(t *testing.T) {
	p := baseProject()
	p.m.Dir = t.TempDir()
	big := filepath.Join(p.m.Dir, "studio", "big.wav")
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 4<<30+1); err != nil { // sparse: MaxRecordingBytes+1
		t.Fatal(err)
	}
	p.fs["studio/big.wav"] = "take"
	p.synthesis(`synthesis.menu["billing"]`).Edit().Recorded = &manifest.Recorded{Path: "studio/big.wav"}
	hashed := false
	hash := func(path string) (state.FileHash, error) {
		if path == "studio/big.wav" {
			hashed = true
		}
		return p.fs.hash(path)
	}
	_, err := planner.Build(p.m, hash)
	if err == nil || !strings.Contains(err.Error(), "4,294,967,296 bytes") || !strings.Contains(err.Error(), "MaxRecordingBytes") ||
		!strings.Contains(err.Error(), "studio/big.wav") {
		t.Errorf("a recording over the bound: %v", err)
	}
	if hashed {
		t.Error("the recording over the bound was hashed")
	}
}
