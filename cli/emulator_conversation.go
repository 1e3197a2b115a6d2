package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/owned"
)

const emulatorConversationUsage = `
Usage: voxform emulator conversation [-url URL] [-out FILE.wav] SCRIPT.yaml

Asks a running emulator (voxform emulator) for a call recording it will
hear: a WAV of 16-bit PCM, one channel per party, in which the turns of
SCRIPT follow each other with a gap of silence, each synthesized by the
emulator in the voice it names. Transcribing the recording through that
emulator (batch jobs or the older batch with is_multi_channel) gives each
turn's words, as written, with its channel as speaker_id, at its time.
The emulator remembers what it synthesized only while it runs: to let a
fresh emulator hear a recording made before, run the command against it
again (without -out it only prints the recording's SHA-256, which is the
same when the emulator renders as it did).

SCRIPT (YAML; sample_rate 8000 or 16000; channels 2 to 8, default 2;
gap_ms 300 to 5000, default 700; speaker a voice of model, by default
tts-v2.5 (timbre-v2.5 under -profile live), Nalini on even channels and
Deepak on odd ones when unset):

  sample_rate: 8000
  language_code: hi-IN
  turns:
    - {channel: 0, speaker: Nalini, text: "कृपया अपना मोबाइल नंबर बताइए।"}
    - {channel: 1, speaker: Deepak, text: "मेरा नंबर है nine eight सात six five four तीन two one zero."}

At most 64 turns, 500 characters a turn, 8000 in all, and 600 seconds of
recording. The recording is written whole or not at all.

Flags:
`

// conversationScript is SCRIPT: the body of the emulator's conversation
// request, which the emulator checks.
type conversationScript struct {
	SampleRate   int                `yaml:"sample_rate" json:"sample_rate"`
	LanguageCode string             `yaml:"language_code" json:"language_code"`
	Channels     int                `yaml:"channels" json:"channels,omitempty"`
	GapMS        *int               `yaml:"gap_ms" json:"gap_ms,omitempty"`
	Model        string             `yaml:"model" json:"model,omitempty"`
	Turns        []conversationTurn `yaml:"turns" json:"turns"`
}

// conversationTurn is one turn of SCRIPT.
type conversationTurn struct {
	Channel *int   `yaml:"channel" json:"channel"`
	Speaker string `yaml:"speaker" json:"speaker,omitempty"`
	Text    string `yaml:"text" json:"text"`
}

// conversationTimeout bounds the whole call: the emulator renders up to
// 64 turns before it answers.
const conversationTimeout = 5 * time.Minute

func runEmulatorConversation(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "emulator conversation", emulatorConversationUsage)
	base := fs.String("url", "http://127.0.0.1:8080", "the emulator's base `URL`")
	out := fs.String("out", "", "write the recording to `FILE` (relative to the working directory)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("emulator conversation takes one SCRIPT file")
	}
	body, err := readConversationScript(env, fs.Arg(0))
	if err != nil {
		return err
	}
	u, err := url.Parse(*base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("emulator conversation: -url %q: want the emulator's http:// base URL", *base)
	}
	ctx, cancel := context.WithTimeout(ctx, conversationTimeout)
	defer cancel()
	wav, err := fetchConversation(ctx, strings.TrimSuffix(u.String(), "/")+emulator.ConversationPath, body)
	if err != nil {
		return err
	}
	return writeConversation(env, *out, wav)
}

// readConversationScript reads SCRIPT (a regular file of at most
// emulator.MaxConversationBody bytes) and returns it as the request body.
func readConversationScript(env *Env, name string) ([]byte, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := owned.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read conversation script %s: %w", name, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, emulator.MaxConversationBody+1))
	if err != nil {
		return nil, fmt.Errorf("read conversation script %s: %w", name, err)
	}
	if len(raw) > emulator.MaxConversationBody {
		return nil, fmt.Errorf("read conversation script %s: larger than %d bytes", name, emulator.MaxConversationBody)
	}
	var s conversationScript
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("read conversation script %s: %s", name, yamlProblem(err))
	}
	return json.Marshal(s)
}

var goType = regexp.MustCompile(` in type cli\.\w+`)

// yamlProblem says what is wrong with a script in the words of its YAML,
// not of the Go type it is read into.
func yamlProblem(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = goType.ReplaceAllString(m, "")
	}
	return strings.Join(msgs, "; ")
}

// fetchConversation posts body to the emulator and returns the recording,
// at most emulator.MaxConversationWAV bytes.
func fetchConversation(ctx context.Context, endpoint string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("make conversation: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("make conversation: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, emulator.MaxConversationWAV+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("make conversation: read the answer: %w", err)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("make conversation: %s answered %d: %s", untrusted.Escape(endpoint), resp.StatusCode, conversationError(b))
	case int64(len(b)) > emulator.MaxConversationWAV:
		return nil, fmt.Errorf("make conversation: the recording is larger than %d bytes", emulator.MaxConversationWAV)
	case len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE":
		return nil, fmt.Errorf("make conversation: %s did not answer a WAV recording (is it a voxform emulator?)", untrusted.Escape(endpoint))
	}
	return b, nil
}

// conversationError is the message of the emulator's error body, or an
// excerpt of the body.
func conversationError(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		return untrusted.Excerpt(e.Error.Message)
	}
	return untrusted.Body(b)
}

// writeConversation writes the recording to out, atomically, when it is
// set, and says what was made.
func writeConversation(env *Env, out string, wav []byte) error {
	sum := sha256.Sum256(wav)
	if out != "" {
		path := out
		if !filepath.IsAbs(path) {
			path = filepath.Join(env.Dir, path)
		}
		err := owned.WriteFile(path, 0o644, func(w io.Writer) error {
			_, err := w.Write(wav)
			return err
		})
		if err != nil {
			return fmt.Errorf("write conversation %s: %w", out, err)
		}
	}
	name := out
	if name == "" {
		name = "recording (not written: no -out)"
	}
	f, data, err := audio.ReadWAVHeader(bytes.NewReader(wav))
	if err != nil || f.ByteRate() == 0 {
		return fmt.Errorf("make conversation: the recording's header: %v", err)
	}
	fmt.Fprintf(env.Stdout, "%s: %d channels, %d Hz, %.1f s, sha256 %x\n", untrusted.Escape(name),
		f.Channels, f.SampleRate, float64(data)/float64(f.ByteRate()), sum)
	return nil
}
