package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/planner"
)

// raw lists what must never reach the terminal from outside: escape
// sequences (ESC, CSI), carriage return, backspace, bidi override.
const raw = "\x1b\r\b\u202e\u009b"

// TestApplyServerErrorShownOnce: a service answering each synthesis with
// a 400 whose JSON message is 64 KiB of escape sequences makes apply print
// each resource's error once (in the summary, not again on its log line),
// short, with the escapes shown and inert.
func TestApplyServerErrorShownOnce(t *testing.T) {
	var body []byte // the largest error body the client reads, 64 KiB
	for n := 1; ; n++ {
		m := strings.Repeat("bad\x1b[2K\x1b[1A\r\b\u202e\u009b", n)
		b, err := json.Marshal(map[string]any{"success": false, "error": map[string]any{"type": "INVALID_REQUEST_ERROR", "message": m}})
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 64<<10 {
			break
		}
		body = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(body)
	}))
	defer srv.Close()
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	env.Getenv = func(k string) string {
		switch k {
		case "VOXFORM_BASE_URL":
			return srv.URL
		case "VOXFORM_API_KEY":
			return testKey
		}
		return ""
	}
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := stdout.String() + stderr.String()
	if i := strings.IndexAny(out, raw); i >= 0 {
		t.Errorf("raw control at byte %d of the output: %.300q", i, out[i:])
	}
	if len(out) > 4000 {
		t.Errorf("%d bytes of output for two failures", len(out))
	}
	for _, addr := range []string{"synthesis.hello", "synthesis.bye"} {
		if n := strings.Count(out, addr+": synthesize"); n != 1 {
			t.Errorf("%s: its error is printed %d times, want once:\n%s", addr, n, out)
		}
	}
	if !strings.Contains(out, `INVALID_REQUEST_ERROR: bad\x1b[2K\x1b[1A \x08\u202e\u009bbad`) || !strings.Contains(out, " bytes)\n") {
		t.Errorf("the message is not shown escaped and excerpted:\n%s", out)
	}
}

// hostileState writes a state recording synthesis.other under an address
// holding escape sequences that would erase the line and write another
// in its place, as anyone who can write the state file or the database
// row can. It returns the address.
func hostileState(t *testing.T, dir string) string {
	t.Helper()
	recordDone(t, dir, "synthesis.other")
	evil := "synthesis.other\x1b[2K\r+ create  synthesis.harmless\u202e"
	p := filepath.Join(dir, "voxform.state.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(evil)
	b = bytes.Replace(b, []byte(`"synthesis.other"`), q, 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return evil
}

// TestPlanStateAddressInert: a state address full of escape sequences
// never reaches the terminal raw, whether plan shows its deletion or
// refuses the state (addresses are also checked where the state is read):
// in the table, show, state list and the error. The table shows the
// escapes.
func TestPlanStateAddressInert(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	hostileState(t, env.Dir)
	for _, cmd := range [][]string{{"plan", "-no-color"}, {"show"}, {"state", "list"}, {"plan", "-markdown"}} {
		code := runCmd(env, cmd...)
		out := stdout.String() + stderr.String()
		if i := strings.IndexAny(out, raw); i >= 0 {
			t.Errorf("%s: exit %d: raw control at byte %d: %q", cmd, code, i, out)
		}
		if code == ExitOK && cmd[0] == "plan" && !strings.Contains(out, `synthesis.other\x1b[2K\r+ create  synthesis.harmless\u202e`) {
			t.Errorf("%s: the address is not shown with its escapes:\n%s", cmd, out)
		}
	}
}

// TestRenderEscapesAddresses: the plan table escapes addresses and
// reasons, which may come from a state.
func TestRenderEscapesAddresses(t *testing.T) {
	evil := "synthesis.a\x1b[2K\x1b[1A\r\b\u202e"
	p := &planner.Plan{Actions: []*planner.Action{
		{Address: evil, Type: planner.Delete, Reasons: []string{"pending job job\x1b]0;pwned\x07 will be cancelled"}},
	}}
	var b bytes.Buffer
	if err := planview.Render(&b, p, planview.Options{}); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(b.String(), raw+"\x07"); i >= 0 {
		t.Errorf("raw control at byte %d: %q", i, b.String())
	}
	if !strings.Contains(b.String(), `synthesis.a\x1b[2K\x1b[1A\r\x08\u202e`) || !strings.Contains(b.String(), `job\x1b]0;pwned\x07 will`) {
		t.Errorf("escapes not shown:\n%s", b.String())
	}
}

// TestMarkdownBytesFlag: -markdown-bytes bounds a -markdown summary (a
// job summary may take 1 MiB); below the minimum, or without -markdown,
// it is a usage error.
func TestMarkdownBytesFlag(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	if code := runCmd(env, "plan", "-markdown", "-markdown-bytes", "1048576"); code != ExitOK || !strings.Contains(stdout.String(), "| `+` | `synthesis.hello` |") {
		t.Errorf("a job summary's bound: exit %d: %s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"plan", "-markdown", "-markdown-bytes", "100"}, {"plan", "-markdown-bytes", "1048576"}, {"show", "-markdown-bytes", "100", "-markdown", "x.plan"}} {
		if code := runCmd(env, args...); code != ExitError || !strings.Contains(stderr.String(), "-markdown-bytes") || stdout.Len() > 0 {
			t.Errorf("%v: exit %d: %s%s", args, code, stdout, stderr)
		}
	}
}

// TestMarkdownNamesWhereTheWorkGoes: a pull request that changes where the
// API key is sent, or which variable it is read from, says so in its plan
// comment; a manifest that sets neither lists nothing.
func TestMarkdownNamesWhereTheWorkGoes(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	if code := runCmd(env, "plan", "-markdown"); code != ExitOK || strings.Contains(stdout.String(), "Set by the manifest") {
		t.Errorf("defaults: exit %d: %s%s", code, stdout, stderr)
	}
	moved := strings.Replace(planManifest, "voices:", "service: { base_url: \"https://speech.example.net\", api_key_env: AWS_SECRET_ACCESS_KEY }\nvoices:", 1)
	env, stdout, stderr = manifestEnv(t, map[string]string{"voxform.yaml": moved})
	code := runCmd(env, "plan", "-markdown")
	for _, want := range []string{"- `service.base_url`: `https://speech.example.net`\n", "- `service.api_key_env`: `AWS_SECRET_ACCESS_KEY`\n"} {
		if code != ExitOK || !strings.Contains(stdout.String(), want) {
			t.Errorf("exit %d: the summary lacks %q:\n%s%s", code, want, stdout, stderr)
		}
	}
}
