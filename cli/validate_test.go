package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manifestEnv returns an Env whose working directory holds the given files.
func manifestEnv(t *testing.T, files map[string]string, environ ...string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir, CacheDir: t.TempDir(),
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return environ },
	}
	return env, &stdout, &stderr
}

const validManifest = `version: 1
variables:
  language: hi-IN
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: "${var.language}" }
syntheses:
  hello: { voice: narrator, text: "Call 100 now", output: build/hello.wav }
`

func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		args       []string
		environ    []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name:       "valid with a warning",
			files:      map[string]string{"voxform.yaml": validManifest},
			wantStdout: "the manifest is valid: 1 voice, 0 embeddings, 1 synthesis, 0 transcriptions (1 warning)\n",
			wantStderr: "voxform.yaml:7:41: warning: digits \"100\" in text are mispronounced by the service\n" +
				"hint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")\n",
		},
		{
			// conformance: none (CLI wording: singular and plural counts)
			name: "plural counts",
			files: map[string]string{"voxform.yaml": validManifest + `  bye: { voice: other, text: "Dial 9", output: build/bye.wav }
`, "voices.yaml": "voices:\n  other: { model: tts-v2.5, voice: Girish, language: en-IN }\n"},
			wantStdout: "the manifest is valid: 2 voices, 0 embeddings, 2 syntheses, 0 transcriptions (2 warnings)\n",
			wantStderr: "voxform.yaml:7:41: warning: digits \"100\" in text are mispronounced by the service\n" +
				"hint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")\n" +
				"voxform.yaml:8:36: warning: digits \"9\" in text are mispronounced by the service\n" +
				"hint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")\n",
		},
		{
			name:     "bad variable from the command line",
			files:    map[string]string{"voxform.yaml": validManifest},
			args:     []string{"-var", "language=xx-IN"},
			wantCode: ExitError,
			wantStderr: "voxform.yaml:5:58: error: language for timbre-v2.5 \"xx-IN\" is not one of auto, hi-IN, en-IN, ta-IN, te-IN, kn-IN, ml-IN, mr-IN, pa-IN, bn-IN, gu-IN, hi-en\n" +
				"hint: did you mean \"bn-IN\"?\n" +
				"voxform.yaml:7:41: warning: digits \"100\" in text are mispronounced by the service\n" +
				"hint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")\n" +
				"voxform: the manifest has 1 error\n" +
				"hint: fix the problems above and run 'voxform validate'\n",
		},
		{
			name:       "variable file and environment",
			files:      map[string]string{"voxform.yaml": validManifest, "env/prod.json": `{"language": "ta-IN"}`},
			args:       []string{"-var-file", "env/prod.json"},
			environ:    []string{"VOXFORM_VAR_language=xx"},
			wantCode:   ExitOK,
			wantStdout: "the manifest is valid: 1 voice, 0 embeddings, 1 synthesis, 0 transcriptions (2 warnings)\n",
			// The live catalog knows Nalini is a Hindi voice.
			wantStderr: "voxform.yaml:5:58: warning: voice Nalini of timbre-v2.5 was made for hi-IN, not ta-IN\n" +
				"hint: voices made for ta-IN: Asmita, Trisha, Brinda, Vedika, Noopur\n" +
				"voxform.yaml:7:41: warning: digits \"100\" in text are mispronounced by the service\n" +
				"hint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")\n",
		},
		{
			name:       "unknown field",
			files:      map[string]string{"voxform.yaml": "version: 1\nvoice:\n  a: {}\n"},
			wantCode:   ExitError,
			wantStderr: "voxform.yaml:2:1: error: unknown field \"voice\" in the manifest\nhint: did you mean \"voices\"?\nvoxform: the manifest has 1 error\nhint: fix the problems above and run 'voxform validate'\n",
		},
		{
			name:       "no manifest",
			files:      map[string]string{},
			wantCode:   ExitError,
			wantStderr: "error: no manifest files",
		},
		{
			name:       "arguments refused",
			files:      map[string]string{"voxform.yaml": validManifest},
			args:       []string{"extra"},
			wantCode:   ExitError,
			wantStderr: "voxform: validate takes no arguments, got \"extra\"\nhint: run with -h for usage\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, stdout, stderr := manifestEnv(t, tt.files, tt.environ...)
			code := Run(context.Background(), env, append([]string{"validate"}, tt.args...))
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if diff := cmp.Diff(tt.wantStdout, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if strings.HasPrefix(tt.wantStderr, "error:") {
				if !strings.Contains(stderr.String(), tt.wantStderr) {
					t.Errorf("stderr %q does not contain %q", stderr, tt.wantStderr)
				}
			} else if diff := cmp.Diff(tt.wantStderr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateJSON(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": `version: 1
voices:
  a: { model: tts-v2.5, voice: Kavery, language: hi-IN, speed: 2 }
`})
	code := Run(context.Background(), env, []string{"validate", "-json"})
	if code != ExitError {
		t.Errorf("exit code %d, want %d", code, ExitError)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr)
	}
	var got []jsonDiagnostic
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var d jsonDiagnostic
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, d)
	}
	want := []jsonDiagnostic{
		{File: "voxform.yaml", Line: 3, Col: 32, Severity: "error",
			Message: `voice name for timbre-v2.5 "Kavery" is not one of Nalini, Bhavna, Yashvi, Urmila, Jwala, Chitra, Ambuja, Deepak, Roopesh, Vikrant, Hemraj, Jalaj, Omkar, Kaveri, Trupti, Devika, Pranav, Shlok, Girish, Asmita and 22 more`, Hint: `did you mean "Kaveri"?`},
		{File: "voxform.yaml", Line: 3, Col: 64, Severity: "error",
			Message: "speed 2 is out of range 0.85 to 1.15", Hint: "or use slow (0.85), medium (1.0) or fast (1.15)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestLoadManifest checks the helper plan and apply use.
func TestLoadManifest(t *testing.T) {
	env, _, stderr := manifestEnv(t, map[string]string{"voxform.yaml": validManifest})
	vars := &varFlags{vars: []string{"language=en-IN"}}
	m, err := loadManifest(env, vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Syntheses) != 1 || m.Syntheses[0].Language != "en-IN" {
		t.Errorf("syntheses: %+v", m.Syntheses)
	}
	if !strings.Contains(stderr.String(), "warning: digits") {
		t.Errorf("warnings not printed: %q", stderr)
	}
	vars.vars = []string{"language=nope"}
	if _, err := loadManifest(env, vars); err == nil || !strings.Contains(err.Error(), "1 error") {
		t.Errorf("error = %v, want the count of errors", err)
	}
}
