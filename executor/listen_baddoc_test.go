package executor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
)

// TestListenBadCheckDocMadeAgain: a check document in the cache that
// cannot be one (another kind, JSON of no check, no JSON at all) is as
// good as none: the apply warns, makes the check again (one recognition
// call) and its new document replaces the bad one, so the next take of
// the same audio is checked free.
func TestListenBadCheckDocMadeAgain(t *testing.T) {
	for _, c := range []struct{ name, kind, body string }{
		{"another kind", "synthesis", `{"api":"rest","language_code":"hi-IN"}`},
		{"no check", "transcription", `{}`},
		{"not json", "transcription", `not json`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": listenPrompts(1, 0)})
			h.apply()
			fp := h.state().Resources["synthesis.p0"].Outputs[0].Listen.Fingerprint
			store, err := cache.OpenLocal(filepath.Join(h.dir, filepath.FromSlash(executor.ChunkDir)))
			if err != nil {
				t.Fatal(err)
			}
			bogus := filepath.Join(t.TempDir(), "x")
			if err := os.WriteFile(bogus, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			store.Remove(fp)
			sum := sha256.Sum256([]byte(c.body))
			e := &cache.Entry{Fingerprint: fp, Kind: c.kind, Files: []cache.File{{Role: "json", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(c.body))}}}
			if err := store.Store(e, map[string]string{"json": bogus}); err != nil {
				t.Fatal(err)
			}
			checks := countChecks(h)
			for i, want := range []int32{1, 1} { // the second replace finds the new document
				var mu sync.Mutex
				var warnings []string
				p, rec, done := h.planWith(planner.Options{Replace: []string{"synthesis.p0"}})
				s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec, Events: func(ev executor.Event) {
					if ev.Kind == executor.EventWarning && ev.Err != nil {
						mu.Lock()
						warnings = append(warnings, ev.Err.Error())
						mu.Unlock()
					}
				}})
				done()
				if err != nil || s.Done != 1 || s.Failed != 0 {
					t.Fatalf("replace %d: %+v %v", i, s, err)
				}
				if n := checks.Load(); n != want {
					t.Errorf("replace %d: %d recognition calls in all, want %d", i, n, want)
				}
				bad := strings.Contains(strings.Join(warnings, "\n"), "made again")
				if bad != (i == 0) {
					t.Errorf("replace %d: warnings %q", i, warnings)
				}
			}
		})
	}
}
