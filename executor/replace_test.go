package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
)

// A file the user edits after the plan (here: between planning and
// applying; in life: while the call is on its way) is not replaced: apply
// replaces only the content the plan found at the path.
func TestFileEditedAfterThePlanIsNotReplaced(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"voxform.yaml": helloSynthesis})
	if s := h.apply(); s.Failed != 0 {
		t.Fatalf("first apply: %+v", s)
	}
	yaml := strings.Replace(helloSynthesis, `text: "`, `text: "Again: `, 1)
	if yaml == helloSynthesis {
		t.Fatal("the test manifest changed shape")
	}
	os.WriteFile(filepath.Join(h.dir, "voxform.yaml"), []byte(yaml), 0o644)
	p, rec, done := h.plan()
	defer done()
	out := filepath.Join(h.dir, "out", "hello.wav")
	if err := os.WriteFile(out, []byte("the user's edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 1 || !strings.Contains(s.Failures[0].Err.Error(), "changed after the plan") {
		t.Fatalf("summary %+v", s)
	}
	if b, _ := os.ReadFile(out); string(b) != "the user's edit" {
		t.Fatalf("the user's edit was replaced: %q", b[:min(len(b), 16)])
	}
}
