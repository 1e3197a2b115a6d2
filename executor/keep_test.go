package executor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
)

// stalledRemote is a remote cache whose uploads wait until release is
// closed, then fail if fail is set; it counts the entries put.
type stalledRemote struct {
	release chan struct{}
	fail    bool

	mu      sync.Mutex
	waiting int
	entries map[string]bool
}

func (r *stalledRemote) String() string                  { return "test://stalled" }
func (r *stalledRemote) Check(ctx context.Context) error { return nil }
func (r *stalledRemote) HasEntries(ctx context.Context, fps []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}
func (r *stalledRemote) Entry(ctx context.Context, fp string) (*cache.Entry, error) { return nil, nil }
func (r *stalledRemote) HasBlobs(ctx context.Context, shas []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}
func (r *stalledRemote) GetBlob(ctx context.Context, sha string, w io.Writer) error {
	return errors.New("no blobs here")
}

func (r *stalledRemote) PutBlob(ctx context.Context, sha string, size int64, src io.Reader) error {
	r.mu.Lock()
	r.waiting++
	r.mu.Unlock()
	<-r.release
	if r.fail {
		return errors.New("remote unavailable")
	}
	_, err := io.Copy(io.Discard, src)
	return err
}

func (r *stalledRemote) PutEntry(ctx context.Context, e *cache.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries[e.Fingerprint] = true
	return nil
}

func (r *stalledRemote) ListEntries(ctx context.Context, fn func(string, time.Time) error) error {
	return nil
}
func (r *stalledRemote) DeleteEntry(ctx context.Context, fp string) error { return nil }
func (r *stalledRemote) ListIndex(ctx context.Context) ([]string, error)  { return nil, nil }
func (r *stalledRemote) GetIndex(ctx context.Context, name string, w io.Writer) error {
	return errors.New("no index here")
}
func (r *stalledRemote) PutIndex(ctx context.Context, name string, size int64, src io.Reader) error {
	_, err := io.Copy(io.Discard, src)
	return err
}
func (r *stalledRemote) DeleteIndex(ctx context.Context, name string) error { return nil }

// promptsManifest is a manifest of n syntheses of other texts.
func promptsManifest(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\nservice: { base_url: https://speech.example.com }\n")
	b.WriteString("voices:\n  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }\nsyntheses:\n")
	for i := range n {
		fmt.Fprintf(&b, "  p%02d: { voice: v, text: \"नमस्ते %d\", output: out/p%02d.wav }\n", i, i, i)
	}
	return b.String()
}

// TestKeepingNeverHoldsTheWork: outputs are kept and pushed in the
// background; an apply's syntheses all finish while every upload to the
// remote is stalled, the apply then waits for the uploads, and a failed
// upload is a warning for its resource, never a failure.
func TestKeepingNeverHoldsTheWork(t *testing.T) {
	const n = 24 // more than the uploads run at once
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": promptsManifest(n)})
			local, err := cache.OpenLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			remote := &stalledRemote{release: make(chan struct{}), fail: fail, entries: map[string]bool{}}
			var mu sync.Mutex
			done, warnings := 0, 0
			allDone := make(chan struct{})
			events := func(e executor.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Kind {
				case executor.EventDone:
					if done++; done == n {
						close(allDone)
					}
				case executor.EventWarning:
					if !strings.Contains(e.Err.Error(), "voxform push") {
						t.Errorf("warning: %v", e.Err)
					}
					warnings++
				}
			}
			summary := make(chan *executor.Summary)
			go func() {
				summary <- h.applyWith(func(o *executor.Options) {
					o.Cache, o.Events, o.Parallelism = &cache.Cache{Local: local, Remote: remote}, events, 2
				})
			}()
			select {
			case <-allDone:
			case s := <-summary:
				t.Fatalf("the apply ended (%+v) before its uploads were released", s)
			case <-time.After(time.Minute):
				t.Fatalf("%d of %d syntheses done in a minute while the uploads were stalled", done, n)
			}
			select {
			case s := <-summary:
				t.Fatalf("the apply ended (%+v) before its uploads did", s)
			default:
			}
			close(remote.release)
			s := <-summary
			if s.Done != n || s.Failed != 0 {
				t.Fatalf("summary %+v, want %d done", s, n)
			}
			pushed := len(remote.entries)
			if want := map[bool]int{false: n, true: 0}[fail]; pushed != want || warnings != n-want {
				t.Errorf("%d entries pushed, %d warnings; want %d and %d", pushed, warnings, want, n-want)
			}
			for _, r := range h.state().Resources {
				if !local.Has(r.Fingerprint) {
					t.Errorf("%s not kept in the local cache", r.Fingerprint[:12])
				}
			}
		})
	}
}

// TestApplyAnnouncesOnce: an apply adds every fingerprint it may push to
// the remote's index in one segment before its pushes, so that another
// machine's lookup finds each output through the index.
func TestApplyAnnouncesOnce(t *testing.T) {
	const n = 12
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": promptsManifest(n)})
	local, err := cache.OpenLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	remote, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := h.applyWith(func(o *executor.Options) {
		o.Cache, o.Parallelism = &cache.Cache{Local: local, Remote: remote}, 4
	})
	if s.Done != n || s.Failed != 0 {
		t.Fatalf("summary %+v, want %d done", s, n)
	}
	names, err := remote.ListIndex(t.Context())
	if err != nil || len(names) != 1 {
		t.Errorf("index segments after the apply: %v, %v; want one", names, err)
	}
	var fps []string
	for _, r := range h.state().Resources {
		fps = append(fps, r.Fingerprint)
	}
	other, err := cache.OpenLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	has, err := (&cache.Cache{Local: other, Remote: remote}).RemoteHas(t.Context(), fps)
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range fps {
		if !has[fp] {
			t.Errorf("%s pushed but not found by another machine", fp[:12])
		}
	}
}
