package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/voxform/voxform/internal/numfmt"
)

// machine describes where the figures were measured.
type machine struct {
	CPUs    int
	Model   string
	Memory  string
	Go      string
	OS      string
	LoadAvg string
}

// describeMachine reads /proc for the CPU model, memory and load.
func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Model: procField("/proc/cpuinfo", "model name"), Memory: "unknown", LoadAvg: "unknown"}
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		var n int64
		if _, err := fmt.Sscanf(kb, "%d kB", &n); err == nil {
			m.Memory = fmt.Sprintf("%.1f GiB", float64(n)/(1<<20))
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// procField returns the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// revision describes the source tree measured: "at 0836574" or "at
// 0836574 with uncommitted changes".
func revision(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "(revision unknown)"
	}
	rev := strings.TrimSpace(string(out))
	if base, ok := strings.CutSuffix(rev, "-dirty"); ok {
		return "at " + base + " with uncommitted changes"
	}
	return "at " + rev
}

// fileSystem names the file system holding path, from /proc/mounts:
// "ext4 (/dev/vda on /)".
func fileSystem(path string) string {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "unknown"
	}
	best, desc := "", "unknown"
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mnt := f[1]
		inside := path == mnt || strings.HasPrefix(path, strings.TrimSuffix(mnt, "/")+"/")
		if inside && len(mnt) >= len(best) {
			best, desc = mnt, fmt.Sprintf("%s (%s on %s)", f[2], f[0], mnt)
		}
	}
	return desc
}

// report is everything a run produced.
type report struct {
	Command   string
	Started   time.Time
	Revision  string // git describe of the voxform measured
	Work      string // the working directory of the generated projects
	WorkFS    string
	Elapsed   time.Duration
	Quick     bool
	Machine   machine
	LoadEnd   string
	Results   []result
	Failures  []string
	Bench     []benchLine
	BenchCmds []string
	Missing   []string
}

// write renders the report as markdown.
func (r *report) write(w io.Writer) {
	fmt.Fprintf(w, "# voxform benchmarks\n\n")
	mode := "full sizes (SPEC section 11)"
	if r.Quick {
		mode = "quick: reduced sizes, so time and size targets get no verdict"
	}
	fmt.Fprintf(w, "`%s` on %s, %s; took %s.\n\n", r.Command, r.Started.UTC().Format("2006-01-02 15:04 MST"), mode, r.Elapsed.Round(time.Second))
	m := r.Machine
	fmt.Fprintf(w, "Machine: %d CPUs (nproc), %s, %s memory, %s, %s; load average %s at the start, %s at the end.\n\n",
		m.CPUs, m.Model, m.Memory, m.Go, m.OS, m.LoadAvg, r.LoadEnd)
	fmt.Fprintf(w, "voxform %s is built once (`go build`) and run as a separate process; wall time, CPU time and peak RSS\n", r.Revision)
	fmt.Fprintln(w, "(GNU time's maximum resident set size) are of that process alone. The emulator runs inside the harness on a loopback")
	fmt.Fprintln(w, "port with its synthetic waveform (NoEspeak: espeak-ng is not used), so that the emulator's speed does not")
	fmt.Fprintln(w, "dominate; it shares the machine's CPUs with voxform, so its work is part of every wall time.")
	fmt.Fprintf(w, "Projects are generated in %s, on %s; every output is synced to disk as apply does (TMPDIR=/dev/shm measures without the disk).\n", r.Work, r.WorkFS)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| # | what | target | figure | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, res := range r.Results {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", res.ID, res.What, res.Target, res.Figure, res.Verdict)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "\nFAILED: %s\n", f)
	}
	fmt.Fprintf(w, "\n## Details\n\n")
	for _, res := range r.Results {
		for _, d := range res.Details {
			fmt.Fprintf(w, "- %s: %s\n", res.ID, d)
		}
	}
	r.writeBench(w)
}

func (r *report) writeBench(w io.Writer) {
	if len(r.BenchCmds) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Go benchmarks\n\n")
	for _, c := range r.BenchCmds {
		fmt.Fprintf(w, "    %s\n", c)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| package | benchmark | iterations | time/op | memory/op | allocs/op | measures |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, b := range r.Bench {
		var t, mem, allocs []string
		for _, m := range b.Metrics {
			switch m.Unit {
			case "B/op":
				mem = append(mem, byteSize(int64(m.Value)))
			case "allocs/op":
				allocs = append(allocs, numfmt.Thousands(int(m.Value)))
			default:
				t = append(t, m.String())
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s |\n", strings.TrimPrefix(b.Pkg, "github.com/voxform/voxform/"),
			b.Name, b.Iterations, strings.Join(t, ", "), strings.Join(mem, ""), strings.Join(allocs, ""), b.Why)
	}
	for _, m := range r.Missing {
		fmt.Fprintf(w, "\nNot found (renamed or removed?): %s\n", m)
	}
}

// secs formats a duration in seconds with millisecond precision.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// mib formats bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// kb formats bytes in kB (1000 bytes), as file sizes are usually quoted.
func kb(b int64) string { return fmt.Sprintf("%.1f kB", float64(b)/1000) }

// byteSize formats bytes in the unit that suits them.
func byteSize(b int64) string {
	switch {
	case b >= 1<<20:
		return mib(b)
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// median returns the run with the median wall time.
func median(ms []measured) measured {
	s := append([]measured(nil), ms...)
	sort.Slice(s, func(i, j int) bool { return s[i].Wall < s[j].Wall })
	return s[len(s)/2]
}

// runsOf describes repeated runs: "3 runs (0.41, 0.42, 0.45 s)".
func runsOf(walls []time.Duration) string {
	if len(walls) == 1 {
		return "1 run"
	}
	parts := make([]string, len(walls))
	for i, w := range walls {
		parts[i] = secs(w)
	}
	return fmt.Sprintf("%d runs (%s s)", len(walls), strings.Join(parts, ", "))
}
