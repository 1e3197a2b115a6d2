package planner_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// TestListenRefusedUntilMade: a synthesis that declares a listening check
// is refused at the check's position, never planned as if it were
// checked.
func TestListenRefusedUntilMade(t *testing.T) {
	m := chapterProject("नमस्ते दुनिया", 0)
	m.Syntheses[0].Listen = &manifest.Listen{Pos: manifest.Pos{File: "voxform.yaml", Line: 7, Col: 5}}
	_, err := planner.Build(m, fakeFS{}.hash)
	if !errors.Is(err, planner.ErrListenNotCarriedOut) || !strings.HasPrefix(err.Error(), "voxform.yaml:7:5: synthesis.chapter: listen:") {
		t.Fatalf("Build with listen: %v", err)
	}
}
