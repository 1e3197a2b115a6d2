package state

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHelperProcess is not a test: crash and lock tests re-execute the test
// binary to run it as a child process.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv("VOXFORM_STATE_HELPER") {
	case "record":
		helperRecord()
	case "lock":
		helperLock()
	default:
		return
	}
	os.Exit(0)
}

// helperRecord records entries from 4 goroutines, printing each address on
// stdout once its append has returned, then folds. It reports its phases:
// "recording" once the state is open, "folding" just before the fold,
// "closed" after it.
func helperRecord() {
	dir, run := os.Getenv("VOXFORM_STATE_DIR"), os.Getenv("VOXFORM_STATE_RUN")
	n, _ := strconv.Atoi(os.Getenv("VOXFORM_STATE_N"))
	b := NewLocal(dir)
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	rec, err := b.Open(context.Background(), lk, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "recording")
	out.Flush()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				addr := fmt.Sprintf("synthesis.r%s_%d", run, i)
				res := sampleResource(addr)
				if err := rec.Record(addr, res); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				mu.Lock()
				fmt.Fprintln(out, addr)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Fprintln(out, "folding")
	out.Flush()
	if err := rec.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Fprintln(out, "closed")
	out.Flush()
}

// helperLock takes the lock for "plan" and holds it until stdin closes.
func helperLock() {
	lk, err := NewLocal(os.Getenv("VOXFORM_STATE_DIR")).Lock(context.Background(), "plan")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	lk.Unlock()
}

func helper(t *testing.T, mode, dir string, extra ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "VOXFORM_STATE_HELPER="+mode, "VOXFORM_STATE_DIR="+dir)
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestKillWhileRecording kills a recording child with SIGKILL at random
// moments, many times, each child recording thousands of entries. After
// every kill the state must load, be consistent, and contain every entry
// whose append had returned; the next run folds what the dead one left.
//
// The kill points are spread over the whole run: right after the state is
// open (a kill point of 0), after a random number of confirmed appends,
// during the final fold (every third run is killed the moment the child
// says it starts folding), and not at all (the run folds and exits). The
// test asserts that some kills did land during a fold.
//
// A SIGKILL (unlike a power cut) keeps what the kernel accepted, so the test
// runs on a memory file system when there is one: fsync latency of a shared
// disk would only make it slow, not stricter.
func TestKillWhileRecording(t *testing.T) {
	dir := memTempDir(t)
	rng := rand.New(rand.NewPCG(7, 11))
	runs, perRun := 10, 2000
	if raceEnabled {
		runs, perRun = 5, 2000 // the race detector slows JSON work tenfold
	}
	confirmed := map[string]bool{}
	foldKills, finished := 0, 0
	for run := range runs {
		// killAt: -1 never, 0 once open, n after n confirmed appends.
		killAt, atFold := rng.IntN(perRun), false
		switch {
		case run == 0:
			killAt = 0
		case run%3 == 2:
			killAt, atFold = -1, true
		case run%4 == 3:
			killAt = -1
		}
		cmd := helper(t, "record", dir, fmt.Sprintf("VOXFORM_STATE_RUN=%d", run), fmt.Sprintf("VOXFORM_STATE_N=%d", perRun))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		seen, killed, folding, closed := 0, false, false, false
		killedAt := -1 // confirmed appends read when the kill was sent
		kill := func() {
			if !killed {
				cmd.Process.Signal(syscall.SIGKILL)
				killed, killedAt = true, seen
			}
		}
		for sc.Scan() {
			switch line := sc.Text(); line {
			case "recording":
				if killAt == 0 {
					kill()
				}
			case "folding":
				folding = true
				if atFold {
					kill()
				}
			case "closed":
				closed = true
			default:
				confirmed[line] = true
				seen++
				if seen == killAt {
					kill()
				}
			}
		}
		err = cmd.Wait()
		if !killed && err != nil {
			t.Fatalf("run %d: child failed: %v", run, err)
		}
		switch {
		case killed && folding && !closed:
			foldKills++
		case !killed && closed:
			finished++
		}
		f, err := NewLocal(dir).Read(context.Background())
		if err != nil {
			t.Fatalf("run %d (killed after %d): state does not load: %v", run, seen, err)
		}
		for addr := range confirmed {
			r, ok := f.Resources[addr]
			if !ok {
				t.Fatalf("run %d: confirmed entry %s lost", run, addr)
			}
			if r.RequestFields()["text"] != addr || r.Status != StatusComplete {
				t.Fatalf("run %d: entry %s corrupt: %+v", run, addr, r)
			}
		}
		// At most the in-flight appends (one per worker) beyond those confirmed.
		if extra := len(f.Resources) - len(confirmed); extra < 0 || extra > 4 {
			t.Fatalf("run %d: %d entries beyond the confirmed ones", run, extra)
		}
		for a := range f.Resources {
			confirmed[a] = true // an unconfirmed but durable entry stays
		}
		if run == 0 && killedAt != 0 {
			t.Fatalf("run 0 was to be killed before any confirmed append; killed after %d", killedAt)
		}
	}
	if foldKills == 0 || finished == 0 {
		t.Errorf("%d run(s) killed during the fold and %d finished; want some of each", foldKills, finished)
	}
	t.Logf("%d runs, %d entries recorded, %d killed during the fold, %d finished", runs, len(confirmed), foldKills, finished)
}

// TestSecondLockFailsAtOnce: a second plan while another process holds the
// lock fails immediately, naming the holder's pid and operation.
func TestSecondLockFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	cmd := helper(t, "lock", dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("child: %q %v", line, err)
	}
	start := time.Now()
	_, err = NewLocal(dir).Lock(context.Background(), "plan")
	if time.Since(start) > 2*time.Second {
		t.Errorf("second lock waited %v", time.Since(start))
	}
	le, ok := err.(*LockedError)
	if !ok {
		t.Fatalf("err = %v, want *LockedError", err)
	}
	if le.Info.PID != cmd.Process.Pid || le.Info.Operation != "plan" {
		t.Errorf("holder = %+v, want pid %d operation plan", le.Info, cmd.Process.Pid)
	}
	msg := le.Error()
	if !strings.Contains(msg, fmt.Sprintf("pid %d", cmd.Process.Pid)) || !strings.Contains(msg, "operation plan") {
		t.Errorf("message %q does not name the holder", msg)
	}

	// force-unlock with a wrong id is refused; with the right one the next
	// lock succeeds although the child still runs.
	b := NewLocal(dir)
	if err := b.ForceUnlock(context.Background(), "wrong"); err == nil {
		t.Error("force-unlock with a wrong id succeeded")
	}
	if err := b.ForceUnlock(context.Background(), le.Info.ID); err != nil {
		t.Fatal(err)
	}
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatalf("lock after force-unlock: %v", err)
	}
	lk.Unlock()
}

func TestLockReleasedAndReacquired(t *testing.T) {
	b := NewLocal(t.TempDir())
	lk, err := b.Lock(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(context.Background(), "apply"); err == nil {
		t.Fatal("second lock in the same process succeeded")
	}
	if err := lk.Unlock(); err != nil {
		t.Fatal(err)
	}
	lk2, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	lk2.Unlock()
	if err := b.ForceUnlock(context.Background(), "x"); err != ErrNotLocked {
		t.Errorf("force-unlock of a free lock: %v", err)
	}
}

// memTempDir returns a temporary directory on /dev/shm when available.
func memTempDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "voxform-state-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}
