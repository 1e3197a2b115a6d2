package planner_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// benchProject writes a manifest directory with n syntheses whose outputs
// (size bytes each) exist and are recorded in voxform.state.json, as after
// an apply. It returns the manifest.
func benchProject(b *testing.B, n, size int) (string, *manifest.Manifest) {
	b.Helper()
	dir := b.TempDir()
	v := &manifest.Voice{Name: "narrator", Address: "voice.narrator", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}
	m := &manifest.Manifest{Dir: dir, Voices: []*manifest.Voice{v}}
	for i := range n {
		key := fmt.Sprintf("p%05d", i)
		m.Syntheses = append(m.Syntheses, synth("menu", key, "narrator", v,
			fmt.Sprintf("प्रॉम्प्ट संख्या %d के लिए यह वाक्य बोला जाएगा", i), "build/menu/"+key+".wav"))
	}
	desired, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, nil })
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "build/menu"), 0o755); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, size)
	st := state.New()
	for _, d := range desired {
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		p := d.Outputs[0].Path
		if err := os.WriteFile(filepath.Join(dir, p), buf, 0o644); err != nil {
			b.Fatal(err)
		}
		sum := sha256.Sum256(buf)
		e := d.Entry()
		e.Outputs = []state.Output{{Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(size)}}
		st.Resources[d.Address] = e
	}
	st.Serial = 1
	err = owned.WriteFile(filepath.Join(dir, state.StateFileName), 0o644, func(w io.Writer) error { return st.Encode(w) })
	if err != nil {
		b.Fatal(err)
	}
	return dir, m
}

// planOnce is what 'voxform plan' does after loading the manifest, through
// the same workflow: lock, read the state and the hash cache, hash, compute,
// check the paths, save the cache.
func planOnce(b *testing.B, dir string, m *manifest.Manifest) *planner.Plan {
	sess, err := workspace.New(dir).Lock(context.Background(), "plan")
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	plan, err := sess.Plan(context.Background(), m, planner.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := sess.SaveHashes(); err != nil {
		b.Fatal(err)
	}
	if plan.HasChanges() {
		b.Fatalf("unchanged project has changes: %v", plan.Summary())
	}
	return plan
}

// BenchmarkPlan10kUnchanged is target P1 (warm hash cache, <= 0.5 s) and P2
// (no hash cache, 10,000 outputs of 50 KB, <= 3 s), manifest loading aside.
func BenchmarkPlan10kUnchanged(b *testing.B) {
	dir, m := benchProject(b, 10_000, 50_000)
	b.Run("warm", func(b *testing.B) {
		planOnce(b, dir, m)
		cpu := startCPU()
		for b.Loop() {
			planOnce(b, dir, m)
		}
		cpu.report(b)
	})
	b.Run("cold", func(b *testing.B) {
		var cpu cpuMeter
		for b.Loop() {
			b.StopTimer()
			os.RemoveAll(filepath.Join(dir, state.CacheDirName))
			cpu.resume()
			b.StartTimer()
			planOnce(b, dir, m)
			cpu.pause()
		}
		cpu.report(b)
	})
}

// BenchmarkFingerprint measures one synthesis's canonical request and hash.
func BenchmarkFingerprint(b *testing.B) {
	req := map[string]any{
		"model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "speed": 1.0,
		"text":         "नमस्ते! आपका स्वागत है। बिलिंग के लिए एक दबाएँ।",
		"audio_config": map[string]any{"container": "wav", "sample_rate": 48000, "num_channels": 1, "sample_width": 2, "encoding": "linear_pcm"},
	}
	for b.Loop() {
		if _, err := planner.Fingerprint("synthesis", req); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuMeter measures the process's CPU time (user + system), reported as
// cpu-s/op: on a shared, loaded machine wall time says more about the
// neighbours than about the code.
type cpuMeter struct {
	start, total time.Duration
}

func startCPU() *cpuMeter {
	c := &cpuMeter{}
	c.resume()
	return c
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuMeter) resume() { c.start = cpuNow() }
func (c *cpuMeter) pause()  { c.total += cpuNow() - c.start }

func (c *cpuMeter) report(b *testing.B) {
	if c.start != 0 && c.total == 0 {
		c.pause()
	}
	b.ReportMetric(c.total.Seconds()/float64(b.N), "cpu-s/op")
}
