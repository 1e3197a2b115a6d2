package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/voxform/voxform/cli"
	"github.com/voxform/voxform/emulator"
)

const profileUsage = `Usage: go run ./bench profile [flags] -- VOXFORM-ARGS...

Runs one voxform command in this process under the CPU profiler, against an
emulator served here (synthetic waveform), to find the hot path behind a
missed target. A generated project to run it in comes from -gen. Read the
profile with: go tool pprof -top -cum FILE (the emulator's own work is under
github.com/voxform/voxform/emulator: -ignore=emulator leaves voxform's).

Examples:
  go run ./bench profile -gen syntheses:10000 -dir /tmp/p -- validate
  go run ./bench profile -dir /tmp/p -cpu apply.prof -- apply -auto-approve
  go run ./bench profile -dir /tmp/p -cpu plan.prof -- plan

Flags:
`

// profileCmd is the profile subcommand.
func profileCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, profileUsage); fs.PrintDefaults() }
	dir := fs.String("dir", "", "the manifest `directory` to run voxform in")
	gen := fs.String("gen", "", "first generate a project in -dir: syntheses:N, raw8k:N (issue 26's L and T: raw 8 kHz, parallelism 16), recordings:N, long:TRANSPORT:SECONDS")
	cpu := fs.String("cpu", "", "write a CPU profile to `FILE`")
	heap := fs.String("heap", "", "write a heap profile (at the end, or at -heap-at) to `FILE`")
	heapAt := fs.Duration("heap-at", 0, "write the heap profile this long after the command starts (what it holds then), rather than at its end")
	latency := fs.Duration("latency", 0, "the emulator's latency")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("profile: -dir is required")
	}
	if *gen != "" {
		if err := generate(*dir, *gen); err != nil {
			return err
		}
	}
	if fs.NArg() == 0 {
		return nil
	}
	e, err := startEmulator(emulator.Options{Latency: *latency, MaxText: 1 << 20, TimeScale: 1000})
	if err != nil {
		return err
	}
	defer e.stop()
	return profiled(ctx, *dir, e.URL(), *cpu, *heap, *heapAt, fs.Args(), stdout, stderr)
}

// profiled runs voxform's CLI in-process with the profiles requested.
func profiled(ctx context.Context, dir, base, cpu, heap string, heapAt time.Duration, args []string, stdout, stderr io.Writer) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	env := &cli.Env{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr, Environ: os.Environ, Dir: abs,
		Getenv: func(k string) string {
			switch k {
			case "VOXFORM_BASE_URL":
				return base
			case "VOXFORM_API_KEY":
				return apiKey
			}
			return os.Getenv(k)
		}}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	begin := time.Now()
	var heapErr chan error
	if heap != "" && heapAt > 0 {
		heapErr = make(chan error, 1)
		t := time.AfterFunc(heapAt, func() { heapErr <- writeHeap(heap) })
		defer t.Stop()
	}
	code := cli.Run(ctx, env, args)
	if cpu != "" {
		pprof.StopCPUProfile()
	}
	fmt.Fprintf(stderr, "bench profile: voxform %v exited %d after %v\n", args, code, time.Since(begin).Round(time.Millisecond))
	switch {
	case heapErr != nil:
		select {
		case err := <-heapErr:
			return err
		default:
			return fmt.Errorf("profile: the command ended before -heap-at %v", heapAt)
		}
	case heap != "":
		return writeHeap(heap)
	}
	return nil
}

// writeHeap writes the heap profile, after a collection, to path.
func writeHeap(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}

// generate writes a project described as KIND:N (see profileUsage).
func generate(dir, spec string) error {
	parts := strings.Split(spec, ":")
	n, err := strconv.Atoi(parts[len(parts)-1])
	switch {
	case err != nil:
	case len(parts) == 2 && parts[0] == "syntheses":
		return writeSyntheses(dir, n, 4)
	case len(parts) == 2 && parts[0] == "raw8k":
		return writeSynthesesAs(dir, raw8k, 0, n, 16)
	case len(parts) == 2 && parts[0] == "recordings":
		return writeRecordings(dir, n)
	case len(parts) == 3 && parts[0] == "long":
		return writeLong(dir, parts[1], longText(float64(n)))
	}
	return fmt.Errorf("profile: -gen %q: want syntheses:N, raw8k:N, recordings:N or long:TRANSPORT:SECONDS", spec)
}
