package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHasTerraformData checks the version terraform_data needs.
func TestHasTerraformData(t *testing.T) {
	for v, want := range map[string]bool{"1.4.0": true, "1.11.4": true, "2.0.0": true, "1.3.9": false, "0.15.5": false, "": false, "dev": false} {
		if got := hasTerraformData(v); got != want {
			t.Errorf("hasTerraformData(%q) = %v, want %v", v, got, want)
		}
	}
}

// testHarness is a harness whose runner measures with GNU time into a
// temporary directory.
func testHarness(t *testing.T) *harness {
	t.Helper()
	timeBin, err := findTime()
	if err != nil {
		t.Fatalf("GNU time is required (scripts/deps.sh installs it): %v", err)
	}
	work := t.TempDir()
	return &harness{sz: fullSizes, work: work, log: t.Logf,
		r: &runner{timeBin: timeBin, logs: filepath.Join(work, "logs")}}
}

// TestSideBySideWithoutTerraform checks that T2 without Terraform says why
// and has no verdict, rather than passing.
func TestSideBySideWithoutTerraform(t *testing.T) {
	h := testHarness(t)
	t.Setenv("PATH", t.TempDir())
	tf, why := h.terraform(context.Background(), 3)
	if tf != nil || why != "not found on PATH" {
		t.Fatalf("terraform() = %v, %q", tf, why)
	}
	r := h.ratio(measured{Wall: time.Second}, nil, tf, why, 3)
	if !strings.HasPrefix(r.Verdict, "n/a (not found on PATH") || r.Figure != "not measured" {
		t.Fatalf("T2 without Terraform: %+v", r)
	}
}

// TestTerraformSideOffline applies a project of three terraform_data with
// every network request refused: init and apply download nothing.
func TestTerraformSideOffline(t *testing.T) {
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH")
	}
	h := testHarness(t)
	for _, v := range []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"} {
		t.Setenv(v, "http://127.0.0.1:1")
	}
	t.Setenv("NO_PROXY", "")
	tf, why := h.terraform(context.Background(), 3)
	if tf == nil {
		t.Fatalf("terraform: %s", why)
	}
	for range 2 { // the second run starts from no state again
		m, err := tf.apply(context.Background(), 3)
		if err != nil {
			t.Fatal(err)
		}
		if m.Wall <= 0 || m.MaxRSS <= 0 {
			t.Fatalf("apply measured %+v", m)
		}
	}
	if _, err := tf.apply(context.Background(), 4); err == nil {
		t.Fatal("an apply of 3 resources passed as one of 4")
	}
}

// TestOnlyNamesNewSteps checks that -h lists the L and T steps.
func TestOnlyNamesNewSteps(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("-h exited %d", code)
	}
	for _, s := range []string{"L1 to L6 or lean", "T1 and T2 or terraform", "10,000 in the L step"} {
		if !strings.Contains(errb.String(), s) {
			t.Errorf("-h does not say %q:\n%s", s, errb.String())
		}
	}
}
