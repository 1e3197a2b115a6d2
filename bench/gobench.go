package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// goBench is a Go benchmark the harness runs, where it lives and why.
type goBench struct {
	Pkg  string // ./planner
	Name string // the benchmark (and its sub-benchmarks)
	// Heavy benchmarks take a second or more an iteration: they run a
	// fixed number of times; the others run for a fixed time.
	Heavy bool
	Why   string
}

// goBenches are the micro-benchmarks of the hot paths behind the targets.
// Those of other packages are theirs; the harness only runs them.
var goBenches = []goBench{
	{"./planner", "BenchmarkPlan10kUnchanged", true, "P1/P2 without process start and manifest loading (warm: hash cache; cold: 10,000 x 50 KB hashed)"},
	{"./planner", "BenchmarkFingerprint", false, "canonical JSON + SHA-256 of one synthesis request"},
	{"./bench", "BenchmarkBuild10k", true, "fingerprints of 10,000 loaded syntheses (planner.Build)"},
	{"./schema", "BenchmarkLoad10k", true, "P8 without process start: load + validate a 10,000-row for_each"},
	{"./state", "BenchmarkJournalAppend", false, "one durable state record with 10 vs 100,000 resources recorded (must be flat)"},
	{"./bench", "BenchmarkSSEStream", false, "SSE synthesis stream parsing and RIFF-aware joining, 1 MiB of audio in 64 chunks, over loopback HTTP"},
}

// benchLine is one parsed line of `go test -bench` output.
type benchLine struct {
	Pkg, Name, Why string
	Iterations     int64
	Metrics        []metric // ns/op, B/op, allocs/op, MB/s, custom units
}

type metric struct {
	Value float64
	Unit  string
}

// runGoBenches runs the benchmarks of goBenches: the heavy ones for
// heavyTimes iterations (e.g. "3x"), the others for lightTime (e.g. "1s"),
// each group in one `go test` invocation (the packages compile in
// parallel), and parses the results.
func runGoBenches(ctx context.Context, root, heavyTimes, lightTime string) ([]benchLine, []string, error) {
	var lines []benchLine
	var commands []string
	for _, heavy := range []bool{true, false} {
		bt := lightTime
		if heavy {
			bt = heavyTimes
		}
		out, command, err := goTestBench(ctx, root, heavy, bt)
		commands = append(commands, command)
		if err != nil {
			return lines, commands, err
		}
		lines = append(lines, parseBench(out)...)
	}
	return lines, commands, nil
}

// goTestBench runs the heavy or light benchmarks with -benchtime bt.
func goTestBench(ctx context.Context, root string, heavy bool, bt string) ([]byte, string, error) {
	var names, pkgList []string
	pkgs := map[string]bool{}
	for _, b := range goBenches {
		if b.Heavy != heavy {
			continue
		}
		names = append(names, "^"+b.Name+"$")
		if !pkgs[b.Pkg] {
			pkgs[b.Pkg] = true
			pkgList = append(pkgList, b.Pkg)
		}
	}
	args := append([]string{"test", "-run", "^$", "-bench", strings.Join(names, "|"), "-benchmem",
		"-benchtime", bt, "-timeout", "15m"}, pkgList...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	command := "go " + shellJoin(args)
	if err != nil {
		return out, command, fmt.Errorf("%s: %v\n%s", command, err, out)
	}
	return out, command, nil
}

// parseBench reads `go test -bench` output: "pkg:" lines name the package
// of the benchmark lines that follow.
func parseBench(out []byte) []benchLine {
	var lines []benchLine
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "pkg:" {
			pkg = f[1]
			continue
		}
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		bl := benchLine{Pkg: pkg, Name: trimProcs(f[0]), Iterations: n}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			bl.Metrics = append(bl.Metrics, metric{v, f[i+1]})
		}
		bl.Why = whyOf(bl.Name)
		lines = append(lines, bl)
	}
	return lines
}

// trimProcs drops the -GOMAXPROCS suffix of a benchmark name.
func trimProcs(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

func whyOf(name string) string {
	for _, b := range goBenches {
		if name == b.Name || strings.HasPrefix(name, b.Name+"/") {
			return b.Why
		}
	}
	return ""
}

// missingBenches lists the benchmarks of goBenches that produced no line.
func missingBenches(lines []benchLine) []string {
	var missing []string
	for _, b := range goBenches {
		found := false
		for _, l := range lines {
			if l.Name == b.Name || strings.HasPrefix(l.Name, b.Name+"/") {
				found = true
			}
		}
		if !found {
			missing = append(missing, b.Pkg+" "+b.Name)
		}
	}
	return missing
}

// String renders the metrics in a readable form: durations in the unit that
// suits them.
func (m metric) String() string {
	switch m.Unit {
	case "ns/op":
		return humanNS(m.Value) + "/op"
	case "B/op":
		return mib(int64(m.Value)) + "/op"
	}
	return strconv.FormatFloat(m.Value, 'f', -1, 64) + " " + m.Unit
}

func humanNS(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// shellJoin joins args for a shell, quoting those that need it.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "|^$*?&;<>()[]{} '\"\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
