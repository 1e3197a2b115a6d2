package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
)

const importTestManifest = `version: 1
voices:
  v: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  hello: { voice: v, text: "Hello", output: build/hello.wav, audio_config: { container: wav, sample_rate: 16000 } }
`

func testWAV(t *testing.T, rate int) string {
	t.Helper()
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}, 8); err != nil {
		t.Fatal(err)
	}
	b.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	return b.String()
}

func TestImportTakesUseArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"import"}, "import: want ADDRESS FILE, or -dir DIR -match PATTERN"},
		{[]string{"import", "-dir", "legacy", "synthesis.hello"}, "import: want ADDRESS FILE, or -dir DIR -match PATTERN"},
		{[]string{"import", "-dir", "legacy", "-match", "{key}{key}.wav"}, "want {key} once"},
		{[]string{"takes"}, "takes: expected one address"},
		{[]string{"use", "synthesis.hello"}, "use: expected an address and a take"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env, _, stderr := manifestEnv(t, map[string]string{"voxform.yaml": importTestManifest})
			if code := runCmd(env, tt.args...); code != ExitError || !strings.Contains(stderr.String(), tt.msg) {
				t.Fatalf("exit %d, stderr %q; want %q", code, stderr, tt.msg)
			}
		})
	}
}

// import FILE resolves FILE from the directory -chdir names, and what it
// adopts is listed by takes as the current, imported take.
func TestImportThenTakes(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": importTestManifest, "old/hello.wav": testWAV(t, 16000), "old/8k.wav": testWAV(t, 8000)})
	if code := runCmd(env, "import", "synthesis.hello", "old/8k.wav"); code != ExitError || !strings.Contains(stderr.String(), "8000 Hz") {
		t.Fatalf("import of an 8 kHz file: exit %d, %s", code, stderr)
	}
	if code := runCmd(env, "import", "-json", "synthesis.hello", "old/hello.wav"); code != ExitOK {
		t.Fatalf("import: exit %d, %s", code, stderr)
	}
	var imported struct {
		Imported []struct {
			Address, Output string
			InPlace         bool `json:"in_place"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &imported); err != nil || len(imported.Imported) != 1 || imported.Imported[0].Output != "build/hello.wav" {
		t.Fatalf("import -json: %q, %v", stdout, err)
	}
	stdout.Reset()
	if code := runCmd(env, "takes", "synthesis.hello"); code != ExitOK {
		t.Fatalf("takes: exit %d, %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "imported") || !strings.HasSuffix(lines[1], "current") {
		t.Fatalf("takes:\n%s", stdout)
	}
}
