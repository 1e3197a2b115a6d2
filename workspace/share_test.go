package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/planner"
)

// Push sends what the state records to the remote: kept in the local
// cache first when it is not there (an apply with the cache off), each
// entry once; what the remote has is left alone, and an output changed
// since it was recorded is a problem, never pushed.
func TestPush(t *testing.T) {
	p := newProject(t)
	remote := filepath.Join(t.TempDir(), "remote")
	os.Mkdir(remote, 0o755)
	manifest := hello + "  bye:\n    voice: v\n    text: \"फिर मिलेंगे\"\n    output: out/bye.wav\ncache:\n  remote: file://" + remote + "\n"
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "voxform.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	plan, s := p.plan(planner.Options{Cache: planner.CacheOff})
	if sum := p.apply(s, plan); sum.Done != 2 {
		t.Fatalf("apply: %+v", sum)
	}
	st, err := p.ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var fps []string
	for _, r := range st.Resources {
		fps = append(fps, r.Fingerprint)
	}
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + remote})
	if err != nil {
		t.Fatal(err)
	}

	rep, err := p.ws.Push(p.ctx, p.load())
	if err != nil || rep.Pushed != 2 || rep.Present != 0 || len(rep.Problems) != 0 {
		t.Fatalf("Push = %+v, %v; want 2 pushed", rep, err)
	}
	local, err := cache.OpenLocal(p.ws.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	has, err := r.HasEntries(p.ctx, fps)
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range fps {
		if !has[fp] || !local.Has(fp) {
			t.Errorf("%s: in the remote %v, in the local cache %v; want both", fp[:12], has[fp], local.Has(fp))
		}
	}

	if rep, err := p.ws.Push(p.ctx, p.load()); err != nil || rep.Pushed != 0 || rep.Present != 2 {
		t.Errorf("Push again = %+v, %v; want 2 present", rep, err)
	}

	// An output edited since, on a machine whose cache lacks it: a
	// problem, the other sent.
	for _, fp := range fps {
		r.DeleteEntry(p.ctx, fp)
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "out", "bye.wav"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = p.ws.Push(p.ctx, p.load())
	if err != nil || rep.Pushed != 1 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "synthesis.bye") {
		t.Errorf("Push with an output edited = %+v, %v; want 1 pushed and a problem with synthesis.bye", rep, err)
	}
}
