package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

const callScript = `sample_rate: 8000
language_code: hi-IN
turns:
  - {channel: 0, speaker: Nalini, text: "कृपया अपना मोबाइल नंबर बताइए।"}
  - {channel: 1, speaker: Deepak, text: "मेरा नंबर है nine eight सात six five four तीन two one zero."}
  - {channel: 0, text: "धन्यवाद। अब आधार नंबर बताइए।"}
  - {channel: 1, text: "two three four one पाँच छह सात आठ nine zero one two."}
`

// restTranscript transcribes wav through the emulator at base (REST).
func restTranscript(t *testing.T, base string, wav []byte) string {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("language_code", "hi-IN")
	w, _ := mw.CreateFormFile("audio_file", "call.wav")
	_, _ = w.Write(wav)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/stt/v3", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key-ID", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Transcript string `json:"transcript"`
	}
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("transcribe: %d %s", resp.StatusCode, body)
	}
	return m.Transcript
}

// TestEmulatorConversation: 'voxform emulator conversation' writes the
// recording a running emulator makes of SCRIPT, says what it wrote, and
// the emulator hears every turn of it, in order.
func TestEmulatorConversation(t *testing.T) {
	srv := httptest.NewServer(emulator.New(emulator.Options{NoEspeak: true}))
	t.Cleanup(srv.Close)
	env, stdout, stderr := manifestEnv(t, map[string]string{"call.yaml": callScript})
	if code := runCmd(env, "emulator", "conversation", "-url", srv.URL+"/", "-out", "call.wav", "call.yaml"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wav, err := os.ReadFile(filepath.Join(env.Dir, "call.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("call.wav: 2 channels, 8000 Hz, %.1f s, sha256 %x\n", float64(len(wav)-44)/32000, sha256.Sum256(wav)); stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	want := "कृपया अपना मोबाइल नंबर बताइए। मेरा नंबर है nine eight सात six five four तीन two one zero. " +
		"धन्यवाद। अब आधार नंबर बताइए। two three four one पाँच छह सात आठ nine zero one two."
	if got := restTranscript(t, srv.URL, wav); got != want {
		t.Errorf("the emulator heard %q, want %q", got, want)
	}
}

// TestEmulatorConversationErrors: a bad script, the emulator's refusal,
// or an answer that is not a recording is a clear error, and writes
// nothing.
func TestEmulatorConversationErrors(t *testing.T) {
	srv := httptest.NewServer(emulator.New(emulator.Options{NoEspeak: true}))
	t.Cleanup(srv.Close)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }))
	t.Cleanup(other.Close)
	files := map[string]string{
		"call.yaml":    callScript,
		"typo.yaml":    "sample_rate: 8000\nlanguage_code: hi-IN\nturn: []\n",
		"channel.yaml": strings.Replace(callScript, "channel: 1, speaker: Deepak", "channel: 5, speaker: Deepak", 1),
		"turn.yaml":    callScript + "  - {channel: 0, txt: hello}\n",
		"rate.yaml":    strings.Replace(callScript, "8000", "eight", 1),
		"big.yaml":     "# " + strings.Repeat("x", emulator.MaxConversationBody) + "\n",
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-url", "URL", "typo.yaml"}, "voxform: read conversation script typo.yaml: line 3: field turn not found"},
		{[]string{"-url", "URL", "turn.yaml"}, "voxform: read conversation script turn.yaml: line 8: field txt not found\n"},
		{[]string{"-url", "URL", "rate.yaml"}, "voxform: read conversation script rate.yaml: line 1: cannot unmarshal !!str `eight` into int\n"},
		{[]string{"-url", "URL", "channel.yaml"}, "answered 400: conversation: turns[1]: channel 5: must be 0 to 1"},
		{[]string{"-url", "URL", "big.yaml"}, "voxform: read conversation script big.yaml: larger than 1048576 bytes"},
		{[]string{"-url", "URL", "missing.yaml"}, "voxform: read conversation script missing.yaml: "},
		{[]string{"-url", "OTHER", "call.yaml"}, "did not answer a WAV recording (is it a voxform emulator?)"},
		{[]string{"-url", "ftp://x", "call.yaml"}, `voxform: emulator conversation: -url "ftp://x": want the emulator's http:// base URL`},
		{[]string{"-url", "URL"}, "voxform: emulator conversation takes one SCRIPT file"},
	} {
		env, stdout, stderr := manifestEnv(t, files)
		args := []string{"emulator", "conversation", "-out", "call.wav"}
		for _, a := range tc.args {
			args = append(args, strings.NewReplacer("OTHER", other.URL, "URL", srv.URL).Replace(a))
		}
		if code := runCmd(env, args...); code != ExitError || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "call.wav")); !os.IsNotExist(err) {
			t.Errorf("%v: call.wav written (%v)", tc.args, err)
		}
	}
}
