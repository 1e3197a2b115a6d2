package workspace_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// importPushed imports synthesis.bye's audio as synthesis.hello's output
// (-force: hello is recorded) in tm's project, pushes, and returns the
// imported bytes and the key the record's bytes are kept under.
func importPushed(t *testing.T, tm *team) ([]byte, string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "hello.wav")
	b, err := os.ReadFile(filepath.Join(tm.ws.Dir, "out", "bye.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := tm.ws.Lock(tm.ctx, "import")
	if err != nil {
		t.Fatal(err)
	}
	files := []workspace.ImportFile{{Address: "synthesis.hello", Path: src}}
	if _, err := s.Import(tm.ctx, tm.load(), files, workspace.ImportOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if rep, err := tm.ws.Push(tm.ctx, tm.load()); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("push: %+v, %v", rep, err)
	}
	st, err := tm.ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := st.Resources["synthesis.hello"]
	if r.Origin != state.OriginImported || r.CacheKey() == r.Fingerprint {
		t.Fatalf("imported record: origin %q, cache key %s, fingerprint %s", r.Origin, r.CacheKey(), r.Fingerprint)
	}
	return b, r.CacheKey()
}

// An imported file, pushed, is restored by a fresh clone's pull byte for
// byte from the entry under its content key, and the state is left as
// committed. When that entry holds other bytes (a teammate who can write
// the remote), the clone's plan shows a billed repair saying why, and pull
// writes nothing for it and leaves the state as committed.
func TestPullRestoresImportedByContentKey(t *testing.T) {
	tm := newTeam(t)
	imported, key := importPushed(t, tm)
	// The request's entry stays the service's answer.
	sum := sha256.Sum256(imported)
	if e, err := tm.remote.Remote.Entry(tm.ctx, tm.fps["synthesis.hello"]); err != nil || e == nil {
		t.Fatalf("the service's entry of synthesis.hello: %v, %v", e, err)
	} else if f, _ := e.File("audio"); f.SHA256 == hex.EncodeToString(sum[:]) {
		t.Fatal("push put the imported bytes under the request's fingerprint")
	}

	c, committed := tm.clone(t)
	done, left := c.pull()
	if done.Done != 2 || done.Failed != 0 || left.HasChanges() {
		t.Fatalf("pull: %+v, left %+v; want both restored", done, left.Actions)
	}
	if got, err := os.ReadFile(filepath.Join(c.ws.Dir, "out", "hello.wav")); err != nil || !bytes.Equal(got, imported) {
		t.Fatalf("pull did not restore the imported out/hello.wav byte for byte (%v)", err)
	}
	if got := c.stateBytes(); !bytes.Equal(got, committed) {
		t.Errorf("pull rewrote voxform.state.json:\n%s", got)
	}

	// The entry under the content key, forged with the service's audio.
	e, err := tm.remote.Remote.Entry(tm.ctx, key)
	if err != nil || e == nil {
		t.Fatalf("remote entry under the content key: %v, %v", e, err)
	}
	service, err := tm.remote.Remote.Entry(tm.ctx, tm.fps["synthesis.hello"])
	if err != nil || service == nil {
		t.Fatal(err)
	}
	e.Files = service.Files
	if err := tm.remote.Remote.PutEntry(tm.ctx, e); err != nil {
		t.Fatal(err)
	}
	c, committed = tm.clone(t)
	plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
	s.Close()
	a := plan.Action("synthesis.hello")
	if a == nil || a.Type != planner.Repair || a.Cost.Characters == 0 || !strings.Contains(strings.Join(a.Reasons, "; "), "is not the recorded out/hello.wav") {
		t.Fatalf("plan of synthesis.hello: %+v; want a billed repair saying the cached audio is not the recorded one", a)
	}
	done, left = c.pull()
	if done.Done != 1 || done.Failed != 0 || left.Action("synthesis.hello") == nil {
		t.Fatalf("pull: %+v, left %+v; want synthesis.bye restored, synthesis.hello left", done, left.Actions)
	}
	if c.exists("out/hello.wav") {
		t.Error("pull wrote out/hello.wav from an entry unlike the state")
	}
	if got := c.stateBytes(); !bytes.Equal(got, committed) {
		t.Errorf("pull rewrote voxform.state.json:\n%s", got)
	}
}
