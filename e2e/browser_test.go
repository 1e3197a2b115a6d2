package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/internal/cdp"
)

// browser is a headless Chromium for one test (see internal/cdp), whose
// every failure fails the test.
type browser struct {
	t testing.TB
	b *cdp.Browser
}

// chromium fails the test when Debian's chromium is missing: the report's
// browser tests are never skipped.
func chromium(t testing.TB) string {
	t.Helper()
	p, err := cdp.Find()
	if err != nil {
		t.Fatalf("the report page's browser tests need chromium: %v", err)
	}
	return p
}

func startBrowser(t testing.TB) *browser {
	t.Helper()
	b, err := cdp.Start(chromium(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return &browser{t: t, b: b}
}

// open navigates to the file at path and waits for its load event.
func (b *browser) open(path string) time.Duration {
	b.t.Helper()
	d, err := b.b.Navigate("file://" + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return d
}

func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	if err := b.b.Eval(expr, out); err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
}

// screenshot saves a PNG of the page to the test's artifact directory.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	png, err := b.b.Screenshot()
	if err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(artifactDir(b.t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", p)
	return p
}

func (b *browser) consoleErrors() []string { return b.b.Errors() }

// artifactDir is where a test keeps what a reviewer may want to see
// (screenshots): $VOXFORM_TEST_ARTIFACTS/<test>, else a directory of the
// test's own.
func artifactDir(t testing.TB) string {
	t.Helper()
	base := os.Getenv("VOXFORM_TEST_ARTIFACTS")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
