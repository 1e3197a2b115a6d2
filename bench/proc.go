package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/voxform/voxform/emulator"
)

// apiKey is the key the harness gives voxform; the emulator accepts any.
const apiKey = "bench-key"

// buildBinary builds voxform from the module at root into dir, once.
func buildBinary(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "voxform")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build voxform: %v\n%s", err, out)
	}
	return bin, nil
}

// measured is one voxform process: its wall time, CPU time, peak resident
// set size, exit status and where its output went.
type measured struct {
	Wall time.Duration
	CPU  time.Duration // user + system
	Sys  time.Duration // system (kernel) part of CPU
	// HarnessCPU is the CPU time this process used meanwhile: the
	// emulator's work, as the harness itself only waits.
	HarnessCPU time.Duration
	MaxRSS     int64 // bytes
	Exit       int
	LogPath    string
}

// runner runs the voxform binary in manifest directories, pointed at an
// emulator through VOXFORM_BASE_URL and VOXFORM_API_KEY (or another binary
// measured the same way: Terraform, in the side-by-side step).
type runner struct {
	bin     string
	timeBin string // GNU time
	logs    string // directory of the processes' output
	seq     int
	// env is added to every process's environment (last, so it wins).
	env []string
}

// run starts voxform with args in dir against base, waits, and measures it.
// stdout and stderr go to a log file (not a terminal: plain progress
// lines, as in CI).
//
// Peak RSS and CPU time come from GNU time wrapping voxform, not from this
// process's wait4: Go starts children with vfork, and Linux then counts the
// parent's (the harness's, emulator included) high-water RSS in the
// child's maxrss. GNU time forks a fresh small process instead.
func (r *runner) run(ctx context.Context, dir, base string, args ...string) (measured, error) {
	r.seq++
	log := filepath.Join(r.logs, fmt.Sprintf("%02d-%s.log", r.seq, args[0]))
	usage := strings.TrimSuffix(log, ".log") + ".time"
	f, err := os.Create(log)
	if err != nil {
		return measured{}, err
	}
	defer f.Close()
	fmt.Fprintf(f, "$ cd %s && %s %s\n", dir, filepath.Base(r.bin), strings.Join(args, " "))
	timeArgs := append([]string{"-f", "%M %U %S", "-o", usage, r.bin}, args...)
	cmd := exec.CommandContext(ctx, r.timeBin, timeArgs...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	// The targets measure the service's path: no output cache (one
	// measurement's restore would stand in for the next one's work), unless
	// the environment given says otherwise.
	cmd.Env = append(append(os.Environ(), "VOXFORM_API_KEY="+apiKey, "NO_COLOR=1", "VOXFORM_CACHE=off"), r.env...)
	if base != "" {
		cmd.Env = append(cmd.Env, "VOXFORM_BASE_URL="+base)
	}
	begin, self := time.Now(), selfCPU()
	err = cmd.Run()
	m := measured{Wall: time.Since(begin), HarnessCPU: selfCPU() - self, LogPath: log}
	if cmd.ProcessState == nil {
		return m, fmt.Errorf("run voxform %s: %w", args[0], err)
	}
	m.Exit = cmd.ProcessState.ExitCode()
	if err := readUsage(usage, &m); err != nil {
		return m, err
	}
	return m, nil
}

// readUsage reads GNU time's "%M %U %S" line (the last line: a child
// killed by a signal gets a "Command terminated" line before it).
func readUsage(path string, m *measured) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read resource usage: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var kib int64
	var user, sys float64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%d %f %f", &kib, &user, &sys); err != nil {
		return fmt.Errorf("read resource usage %q: %w", b, err)
	}
	m.MaxRSS = kib << 10
	m.CPU = time.Duration((user + sys) * float64(time.Second))
	m.Sys = time.Duration(sys * float64(time.Second))
	return nil
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// findTime finds GNU time, which measures voxform's peak RSS.
func findTime() (string, error) {
	for _, p := range []string{"/usr/bin/time", "/bin/time"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("GNU time is needed to measure voxform's peak RSS: install it (Debian: apt-get install time)")
}

// mustExit runs voxform and fails unless it exits with want.
func (r *runner) mustExit(ctx context.Context, want int, dir, base string, args ...string) (measured, error) {
	m, err := r.run(ctx, dir, base, args...)
	if err != nil {
		return m, err
	}
	if m.Exit != want {
		return m, fmt.Errorf("voxform %s in %s exited %d, want %d: see %s\n%s",
			strings.Join(args, " "), dir, m.Exit, want, m.LogPath, tail(m.LogPath, 12))
	}
	return m, nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// emu is an emulator the harness serves in its own process, so that the
// voxform process measured is voxform alone.
type emu struct {
	run *emulator.Running
}

// startEmulator serves an emulator on a loopback port. It always uses the
// synthetic waveform (NoEspeak): espeak-ng would make the emulator, not
// voxform, the bottleneck. It behaves as the live service unless opts says
// otherwise: voxform's default profile is live, and the generated
// manifests name none.
func startEmulator(opts emulator.Options) (*emu, error) {
	opts.NoEspeak = true
	if opts.Profile == "" {
		opts.Profile = emulator.ProfileLive
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	r, err := emulator.Start(opts, "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &emu{run: r}, nil
}

func (e *emu) URL() string { return e.run.URL }

func (e *emu) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.run.Shutdown(ctx)
}

// emuStats is the part of GET /_emulator/stats the harness reads.
type emuStats struct {
	Requests         map[string]int64 `json:"requests"`
	BilledCharacters int64            `json:"billed_characters"`
	BatchJobsCreated int64            `json:"batch_jobs_created"`
	FilesTranscribed int64            `json:"files_transcribed"`
}

// stats fetches GET /_emulator/stats over HTTP, as any client would.
func (e *emu) stats(ctx context.Context) (emuStats, error) {
	var s emuStats
	err := e.statsInto(ctx, &s)
	return s, err
}

// statsInto decodes GET /_emulator/stats into v, the part of it a step
// reads.
func (e *emu) statsInto(ctx context.Context, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.run.URL+"/_emulator/stats", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("emulator stats: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("emulator stats: %w", err)
	}
	return nil
}

// during runs fn and returns what the emulator was asked and billed
// meanwhile.
func (e *emu) during(ctx context.Context, fn func() error) (emuStats, error) {
	before, err := e.stats(ctx)
	if err != nil {
		return emuStats{}, err
	}
	if err := fn(); err != nil {
		return emuStats{}, err
	}
	after, err := e.stats(ctx)
	if err != nil {
		return emuStats{}, err
	}
	return after.minus(before), nil
}

// minus returns the requests made since before.
func (s emuStats) minus(before emuStats) emuStats {
	d := emuStats{Requests: map[string]int64{}}
	for k, v := range s.Requests {
		if n := v - before.Requests[k]; n != 0 {
			d.Requests[k] = n
		}
	}
	d.BilledCharacters = s.BilledCharacters - before.BilledCharacters
	d.BatchJobsCreated = s.BatchJobsCreated - before.BatchJobsCreated
	d.FilesTranscribed = s.FilesTranscribed - before.FilesTranscribed
	return d
}

// total is the number of API requests of every route.
func (s emuStats) total() int64 {
	var n int64
	for _, c := range s.Requests {
		n += c
	}
	return n
}

// describe lists the request counts by route, e.g. "POST /api/v1/tts/inference: 1000".
func (s emuStats) describe() string {
	if len(s.Requests) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(s.Requests))
	for k := range s.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, s.Requests[k]))
	}
	return strings.Join(parts, ", ")
}
