package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// ffprobe returns the path of ffprobe, failing the test loudly when it is
// missing (scripts/deps.sh installs it).
func ffprobe(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Fatalf("ffprobe is needed to check the outputs and is not on the PATH (install it: scripts/deps.sh): %v", err)
	}
	return p
}

// probe is what ffprobe reports of a file.
type probe struct {
	Streams []struct {
		CodecType  string `json:"codec_type"`
		CodecName  string `json:"codec_name"`
		SampleRate string `json:"sample_rate"`
		Channels   int    `json:"channels"`
		Packets    string `json:"nb_read_packets"`
	} `json:"streams"`
	Format struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

// runProbe runs ffprobe with pre (input options) on file. Anything ffprobe
// complains about at error level fails the test. What ffprobe reported of
// the same bytes under the same name's extension and options is taken
// from probes (ffprobe reads nothing else, and starting it costs some
// 0.3 s of CPU: the suite checks the same outputs round after round).
func runProbe(t testing.TB, file string, pre ...string) probe {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("ffprobe %s: %v", file, err)
	}
	key := probeKey{sum: sha256.Sum256(b), ext: filepath.Ext(file), pre: strings.Join(pre, "\x00")}
	if p, ok := probes.Load(key); ok {
		return p.(probe)
	}
	args := append([]string{"-v", "error", "-count_packets",
		"-show_entries", "stream=codec_type,codec_name,sample_rate,channels,nb_read_packets:format=duration",
		"-of", "json"}, pre...)
	cmd := exec.Command(ffprobe(t), append(args, file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("ffprobe %s: %v\n%s", file, err, stderr.String())
	}
	var p probe
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("ffprobe %s: %v", file, err)
	}
	if len(p.Streams) != 1 {
		t.Fatalf("ffprobe %s: %d streams, want 1", file, len(p.Streams))
	}
	probes.Store(key, p)
	return p
}

// probeKey is what ffprobe's report of a file depends on: its bytes, its
// name's extension (a hint to the format) and the input options.
type probeKey struct {
	sum      [32]byte
	ext, pre string
}

// probes holds runProbe's reports that passed, by probeKey.
var probes sync.Map

// requestConfig is the audio_config of a recorded synthesis request.
type requestConfig struct {
	AudioConfig struct {
		SampleRate int `json:"sample_rate"`
	} `json:"audio_config"`
}

// checkOutput proves one recorded output is a valid file of its kind and
// matches its recorded hash and size: audio through ffprobe (raw G.711 with
// its rate given), transcripts as JSON, SubRip/WebVTT through ffprobe's
// subtitle demuxers, text as UTF-8.
func checkOutput(t testing.TB, p *project, r *stateResource, o stateOutput) {
	t.Helper()
	file := p.path(o.Path)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("output %s: %v", o.Path, err)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != o.SHA256 || int64(len(b)) != o.Size {
		t.Fatalf("output %s does not match its recorded hash and size", o.Path)
	}
	var want requestConfig
	_ = json.Unmarshal(r.Request, &want)
	switch ext := path.Ext(o.Path); ext {
	case ".ulaw", ".alaw":
		format := map[string]string{".ulaw": "mulaw", ".alaw": "alaw"}[ext]
		checkAudio(t, o.Path, runProbe(t, file, "-f", format, "-ar", "8000"), "pcm_"+format, 8000)
	case ".wav", ".mp3", ".ogg", ".opus":
		checkAudio(t, o.Path, runProbe(t, file), "", want.AudioConfig.SampleRate)
	case ".json":
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil || len(v) == 0 {
			t.Fatalf("output %s is not a JSON object: %v", o.Path, err)
		}
	case ".srt", ".vtt":
		pr := runProbe(t, file)
		if n, _ := strconv.Atoi(pr.Streams[0].Packets); pr.Streams[0].CodecType != "subtitle" || n == 0 {
			t.Fatalf("output %s: ffprobe finds no cues: %+v", o.Path, pr)
		}
	case ".txt":
		if !utf8.Valid(b) || strings.TrimSpace(string(b)) == "" {
			t.Fatalf("output %s is not non-empty UTF-8 text", o.Path)
		}
	default:
		t.Fatalf("output %s: no check for its kind", o.Path)
	}
}

func checkAudio(t testing.TB, name string, pr probe, codec string, rate int) {
	t.Helper()
	s := pr.Streams[0]
	d, _ := strconv.ParseFloat(pr.Format.Duration, 64)
	switch {
	case s.CodecType != "audio":
		t.Fatalf("output %s: not audio: %+v", name, s)
	case codec != "" && s.CodecName != codec:
		t.Fatalf("output %s: codec %s, want %s", name, s.CodecName, codec)
	case rate != 0 && s.SampleRate != strconv.Itoa(rate):
		t.Fatalf("output %s: sample rate %s, want %d", name, s.SampleRate, rate)
	case d <= 0.1:
		t.Fatalf("output %s: duration %v s", name, d)
	}
}

// checkOutputs validates every output the state records, and proves that
// the build directory holds those files and nothing else (no temporary
// file left behind, nothing unrecorded).
func checkOutputs(t testing.TB, p *project, wantOutputs int) *stateFile {
	t.Helper()
	return checkSomeOutputs(t, p, wantOutputs, nil)
}

// checkSomeOutputs is checkOutputs where pick, when not nil, chooses which
// outputs get the (slow) validity check; every output is still required to
// be complete, recorded and alone in build.
func checkSomeOutputs(t testing.TB, p *project, wantOutputs int, pick func() bool) *stateFile {
	t.Helper()
	st := p.readState()
	recorded := map[string]bool{}
	for addr, r := range st.Resources {
		if r.Status != "complete" {
			t.Fatalf("%s: status %q, want complete", addr, r.Status)
		}
		for _, o := range r.Outputs {
			if pick == nil || pick() {
				checkOutput(t, p, r, o)
			}
			recorded[o.Path] = true
		}
	}
	if len(recorded) != wantOutputs {
		t.Fatalf("state records %d outputs, want %d", len(recorded), wantOutputs)
	}
	for _, f := range p.filesUnder("build") {
		if !recorded[f] {
			t.Fatalf("build holds %s, which the state does not record", f)
		}
	}
	return st
}

// assertNoTemps proves no temporary output is left anywhere in the test's
// directories: in the project, and beside it (a temporary file must never
// be created outside the manifest directory).
func assertNoTemps(t testing.TB, p *project) {
	t.Helper()
	root := filepath.Dir(p.dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".voxform-tmp-") {
			return fmt.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
