package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/state"
)

// TestForceUnlockHeldLock: with the lock held, a wrong id is refused and
// the lock stays; the holder's id breaks it and the next command runs.
func TestForceUnlockHeldLock(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	lk, err := state.NewLocal(env.Dir).Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	id := lk.Info().ID

	code := runCmd(env, "force-unlock", "-force", "not-the-id")
	if code != ExitError {
		t.Errorf("wrong id: exit %d", code)
	}
	msg := stderr.String()
	for _, want := range []string{`voxform: force-unlock: lock id "not-the-id" does not match the holder's`, "lock id " + id, "operation apply"} {
		if !strings.Contains(msg, want) {
			t.Errorf("wrong id: stderr lacks %q:\n%s", want, msg)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("wrong id: stdout %q", stdout)
	}
	if code := runCmd(env, "plan"); code != ExitError || !strings.Contains(stderr.String(), "state is locked") {
		t.Errorf("a wrong id freed the lock: plan exit %d: %s", code, stderr)
	}

	if code := runCmd(env, "force-unlock", "-force", id); code != ExitOK || stdout.String() != "The state lock was broken.\n" || stderr.Len() != 0 {
		t.Errorf("right id: exit %d: %q %q", code, stdout, stderr)
	}
	if code := runCmd(env, "plan"); code != ExitOK {
		t.Errorf("plan after force-unlock: exit %d: %s", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, nil)
	if code := runCmd(env, "version"); code != ExitOK || stderr.Len() != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := fmt.Sprintf("voxform %s (%s %s/%s)\n", state.VoxformVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if stdout.String() != want {
		t.Errorf("version printed %q, want %q", stdout, want)
	}
	if !regexp.MustCompile(`^voxform v?\d+\.\d+\.\d+\S* \(go`).MatchString(stdout.String()) {
		t.Errorf("version %q is not a version number", stdout)
	}
}

// TestShowJSON: show -json of a saved plan gives its plan messages; of the
// state, the state document itself.
func TestShowJSON(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "show", "-json"); code != ExitOK {
		t.Fatalf("show -json of no state: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "plan", "-target", "synthesis.bye", "-out", "bye.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "show", "-json", "bye.plan"); code != ExitOK {
		t.Fatalf("show -json PLANFILE: exit %d: %s", code, stderr)
	}
	msgs := jsonLines(t, stdout.String())
	if got := types(msgs); !slices.Equal(got, []string{"planned_change", "change_summary"}) {
		t.Errorf("show -json PLANFILE: %v", got)
	}
	if msgs[0]["address"] != "synthesis.bye" || msgs[1]["add"] != 1.0 {
		t.Errorf("show -json PLANFILE: %v", msgs)
	}

	if code := runCmd(env, "apply", "bye.plan"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "show", "-json"); code != ExitOK {
		t.Fatalf("show -json: exit %d: %s", code, stderr)
	}
	var st struct {
		Version   int                        `json:"version"`
		Lineage   string                     `json:"lineage"`
		Serial    int                        `json:"serial"`
		Resources map[string]json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatalf("show -json is not the state document: %v\n%s", err, stdout)
	}
	if st.Version == 0 || st.Lineage == "" || st.Serial == 0 || len(st.Resources) != 1 || st.Resources["synthesis.bye"] == nil {
		t.Errorf("show -json: %+v", st)
	}
	if bytes.Contains(stdout.Bytes(), []byte(testKey)) {
		t.Error("the API key is in the state")
	}
}

// TestPrintSummary: the end of a human apply or destroy names the command
// and how it ended, and lists every failure.
func TestPrintSummary(t *testing.T) {
	failed := []executor.Failure{{Address: "synthesis.a", Err: errors.New("service answered 403 FORBIDDEN")}}
	tests := []struct {
		op       string
		s        executor.Summary
		emulated bool
		want     string
	}{
		{op: "apply", s: executor.Summary{Done: 2, BilledCharacters: 1234}, want: "\nApply complete! Resources: 2 done, 0 failed, 0 skipped.\nBilled: 1,234 characters, 0h00m00s of audio.\n"},
		{op: "destroy", s: executor.Summary{Done: 3}, emulated: true, want: "\nDestroy complete! Resources: 3 done, 0 failed, 0 skipped.\nBilled: 0 characters, 0h00m00s of audio. (by the emulator: no real charges)\n"},
		{op: "destroy", s: executor.Summary{Done: 1, Interrupted: true}, want: "\nDestroy interrupted! Resources: 1 done, 0 failed, 0 skipped.\nBilled: 0 characters, 0h00m00s of audio.\n"},
		{op: "destroy", s: executor.Summary{Failed: 1, Skipped: 2, Failures: failed, BilledAudioSeconds: 3661},
			want: "\nDestroy finished with errors! Resources: 0 done, 1 failed, 2 skipped.\nBilled: 0 characters, 1h01m01s of audio.\n  synthesis.a: service answered 403 FORBIDDEN\n"},
		{op: "apply", s: executor.Summary{Done: 1, LowestConcurrency: 2, OrphansCancelled: 1, Warnings: []string{"list batch jobs: 404"}},
			want: "\nApply complete! Resources: 1 done, 0 failed, 0 skipped.\nBilled: 0 characters, 0h00m00s of audio.\n" +
				"Rate limited by the service: concurrency was lowered to 2.\n" +
				"Cancelled 1 orphan batch job(s) that an interrupted apply created but never recorded (never started, never billed).\n" +
				"Warning: list batch jobs: 404\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		printSummary(&b, tt.op, &tt.s, tt.emulated)
		if b.String() != tt.want {
			t.Errorf("%s %+v:\n%q\nwant\n%q", tt.op, tt.s, b.String(), tt.want)
		}
	}
}

// TestJSONSummaryCarriesOrphansAndRateLimit: -json apply reports orphan
// sweeps and warnings as their own messages and in apply_summary.
func TestJSONSummaryCarriesOrphansAndRateLimit(t *testing.T) {
	var b bytes.Buffer
	r := newRenderer(&b, true, false, false)
	r.Event(executor.Event{Kind: executor.EventOrphansCancelled, Count: 2})
	r.Event(executor.Event{Kind: executor.EventWarning, Err: errors.New("list batch jobs: 404")})
	r.Event(executor.Event{Kind: executor.EventApplyDone, Summary: &executor.Summary{Done: 1, OrphansCancelled: 2, LowestConcurrency: 3, Warnings: []string{"list batch jobs: 404"}}})
	msgs := jsonLines(t, b.String())
	if got := types(msgs); !slices.Equal(got, []string{"orphans_cancelled", "warning", "apply_summary"}) {
		t.Fatalf("types %v", got)
	}
	if msgs[0]["count"] != 2.0 || msgs[1]["message"] != "list batch jobs: 404" {
		t.Errorf("messages %v", msgs[:2])
	}
	s := msgs[2]
	if s["orphans_cancelled"] != 2.0 || s["lowest_concurrency"] != 3.0 || fmt.Sprint(s["warnings"]) != "[list batch jobs: 404]" {
		t.Errorf("apply_summary %v", s)
	}
}
