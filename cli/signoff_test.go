package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// shownRecord is what state show prints of one address.
func shownRecord(t *testing.T, out, addr string) (approval map[string]any, origin string) {
	t.Helper()
	var m map[string]struct {
		Approval map[string]any `json:"approval"`
		Origin   string         `json:"origin"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("state show: %v\n%s", err, out)
	}
	return m[addr].Approval, m[addr].Origin
}

// TestSignOffShown: state show gives an approval's who, when, note and
// whether it holds (in the JSON, and in words on stderr with where the
// outputs came from; -json prints only the JSON); show's table has an
// approval and an origin column; plan -markdown says how many declared
// resources are approved and holding and names the approval a replace
// ends; the report page carries the approvals. An approval lost and an
// imported output say so.
func TestSignOffShown(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": approveManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	note := "<script>x</script> TICKET-7"
	if code := runCmd(env, "approve", "-by", "Ana <ana@example.com>", "-note", note, "synthesis.menu[*]"); code != ExitOK {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}

	a := `synthesis.menu["a"]`
	if code := runCmd(env, "state", "show", a); code != ExitOK {
		t.Fatalf("state show: exit %d: %s", code, stderr)
	}
	ap, _ := shownRecord(t, stdout.String(), a)
	if ap["holds"] != true || ap["by"] != "Ana <ana@example.com>" || ap["note"] != note || ap["at"] == nil || ap["digest"] == nil {
		t.Errorf("state show: approval %v", ap)
	}
	if !regexp.MustCompile(`voxform: synthesis.menu\["a"\]: approved by Ana <ana@example.com> at 20\d\d-\d\d-\d\dT[0-9:]+Z; note: <script>x</script> TICKET-7\n` +
		`voxform: synthesis.menu\["a"\]: origin: made by the service\n$`).MatchString(stderr.String()) {
		t.Errorf("state show says on stderr:\n%s", stderr)
	}
	if code := runCmd(env, "state", "show", "-json", "synthesis.bye"); code != ExitOK || stderr.Len() != 0 {
		t.Fatalf("state show -json: exit %d: %s", code, stderr)
	}
	if ap, _ := shownRecord(t, stdout.String(), "synthesis.bye"); ap != nil {
		t.Errorf("state show -json of an unapproved resource: approval %v", ap)
	}

	if code := runCmd(env, "show"); code != ExitOK || !regexp.MustCompile(`(?m)^\| synthesis\.menu\["a"\] +\| complete +\| build/a\.wav +\| +\d+ chars +\| approved +\| +\|$`).MatchString(stdout.String()) {
		t.Errorf("show: exit %d:\n%s", code, stdout)
	}

	if code := runCmd(env, "plan", "-markdown", "-replace", a); code != ExitOK {
		t.Fatalf("plan -markdown: exit %d: %s", code, stderr)
	}
	md := stdout.String()
	if !strings.Contains(md, "**Approvals:** 2 of 3 declared resources approved and holding; this plan ends 1:\n\n- `synthesis.menu[\"a\"]`: approval by Ana") ||
		strings.Count(md, "will no longer hold") != 2 { // the list's line and the row's reason
		t.Errorf("plan -markdown:\n%s", md)
	}

	if code := runCmd(env, "report", "-out", "review"); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(env.Dir, "review", "index.html"))
	if err != nil || !strings.Contains(string(page), `"approval":{"state":"approved","by":"Ana \u003cana@example.com\u003e"`) || strings.Contains(string(page), "<script>x") {
		t.Errorf("the report page's approval (%v):\n%.2000s", err, page)
	}

	// Lost: the outputs replaced since; imported: adopted by import.
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(approveManifest, "press", "push", 1)), 0o644)
	if code := runCmd(env, "apply", "-auto-approve", "-replace", `synthesis.menu["b"]`); code != ExitOK {
		t.Fatalf("apply -replace: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "state", "show", `synthesis.menu["b"]`); code != ExitOK || !strings.Contains(stderr.String(), "approval lost: outputs changed since Ana") {
		t.Fatalf("state show of a lost approval: exit %d: %s", code, stderr)
	}
	if ap, _ := shownRecord(t, stdout.String(), `synthesis.menu["b"]`); ap["holds"] != false || ap["note"] != note {
		t.Errorf("state show of a lost approval: %v", ap)
	}
	bye, err := os.ReadFile(filepath.Join(env.Dir, "build/bye.wav"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(env.Dir, "old-bye.wav"), bye, 0o644)
	if code := runCmd(env, "import", "-force", "synthesis.bye", "old-bye.wav"); code != ExitOK {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "state", "show", "synthesis.bye"); code != ExitOK || !strings.Contains(stderr.String(), "synthesis.bye: not approved\nvoxform: synthesis.bye: origin: imported by 'voxform import'\n") {
		t.Errorf("state show of an import: exit %d: %s", code, stderr)
	}
	if _, origin := shownRecord(t, stdout.String(), "synthesis.bye"); origin != "imported" {
		t.Errorf("state show of an import: origin %q", origin)
	}
	if code := runCmd(env, "show"); code != ExitOK || !regexp.MustCompile(`(?m)^\| synthesis\.bye +\|.*\| +\| imported +\|$`).MatchString(stdout.String()) ||
		!regexp.MustCompile(`(?m)^\| synthesis\.menu\["b"\] +\|.*\| lost +\| +\|$`).MatchString(stdout.String()) {
		t.Errorf("show after a lost approval and an import:\n%s", stdout)
	}
}

// TestApproveAddressWithStar: an address whose for_each key holds a *
// names only itself (the report page's command for one ticked row
// approves that row), while a pattern that is no address still matches.
func TestApproveAddressWithStar(t *testing.T) {
	addrs := []string{`synthesis.menu["a*"]`, `synthesis.menu["ab"]`, `synthesis.menu["b"]`}
	for pattern, want := range map[string]string{
		`synthesis.menu["a*"]`: `synthesis.menu["a*"]`,
		`synthesis.menu["a*`:   `synthesis.menu["a*"] synthesis.menu["ab"]`,
		`synthesis.menu[*]`:    strings.Join(addrs, " "),
	} {
		got, err := matchPatterns([]string{pattern}, addrs, "approve", "declared in the manifest")
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s names %q (%v), want %q", pattern, got, err, want)
		}
	}
}
