package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// encodedManifest declares a recording for an mp3 and for an ogg
// output; recorded is each one's recorded: value.
func encodedManifest(recorded string) string {
	return fmt.Sprintf(`version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  podcast:
    voice: n
    text: "Welcome to the show."
    output: build/welcome.mp3
    audio_config: { container: mp3, sample_rate: 16000, bitrate: 64k }
    recorded: %[1]s
  web:
    voice: n
    text: "Welcome to the site."
    output: build/welcome.ogg
    audio_config: { container: ogg, sample_rate: 22050 }
    recorded: %[1]s
`, recorded)
}

// TestRecordedEncoded is issue 30's "converted where the audio_config
// asks and a conversion is ... declared" for the lossy containers: a
// WAV recording for an mp3 and an ogg output is refused without
// convert: true, naming the encoding; with it, apply encodes the
// recording with no call to the service and no API key: ffprobe reads an
// MP3 at the declared rate and an Ogg Opus file of the recording's
// length, each output records ffmpeg's identity, the next plan is empty,
// and a replace encodes the same bytes again. Another ffmpeg (a new
// version) leaves the outputs as they are until they are made again,
// which records it; without ffmpeg the plan of unchanged recordings is
// empty, an MP3 recording for an mp3 output is copied, and only making
// an encoded one is refused, naming it.
func TestRecordedEncoded(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	real, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatalf("ffmpeg is needed to encode recordings and is not on the PATH (install it: scripts/deps.sh): %v", err)
	}
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	p := newProject(t, "", e)
	p.writeFile("studio/welcome.wav", string(speechLikeWAV(t, 330)))

	p.writeFile("voxform.yaml", encodedManifest("studio/welcome.wav"))
	if r := p.run("plan"); r.code == 0 || !strings.Contains(r.stderr, "an MP3 encoding") ||
		!strings.Contains(r.stderr, "an Ogg Opus encoding") || !strings.Contains(r.stderr, "convert: true") {
		t.Fatalf("a recording encoded without convert: true: want refused, naming the encoding:\n%s", r)
	}

	p.writeFile("voxform.yaml", encodedManifest("{ path: studio/welcome.wav, convert: true }"))
	changes, sum := p.plan()
	if sum.Add != 2 || sum.changes() != 2 || sum.Cost.Characters != 0 {
		t.Fatalf("plan: %+v %+v, want two free creates", sum, changes)
	}
	// A project of recordings alone calls no service: no key is asked for.
	withKey := p.env
	p.env = slices.DeleteFunc(slices.Clone(p.env), func(v string) bool { return strings.HasPrefix(v, "VOXFORM_API_KEY=") })
	calls := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	p.env = withKey
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("apply of encoded recordings made %d API calls, want none", n)
	}
	for path, want := range map[string]string{"build/welcome.mp3": "mp3 16000", "build/welcome.ogg": "opus 48000"} {
		pr := runProbe(t, p.path(path))
		if len(pr.Streams) != 1 {
			t.Fatalf("%s: %d streams", path, len(pr.Streams))
		}
		secs, _ := strconv.ParseFloat(pr.Format.Duration, 64)
		if s := pr.Streams[0]; s.CodecName+" "+s.SampleRate != want || s.Channels != 1 || secs < 1.15 || secs > 1.35 {
			t.Errorf("%s: ffprobe reads %s %s, %d channel(s), %s s; want %s, mono, the recording's 1.2 s", path, s.CodecName, s.SampleRate, s.Channels, pr.Format.Duration, want)
		}
		if o := stateOrigin(t, p, "synthesis."+map[string]string{"build/welcome.mp3": "podcast", "build/welcome.ogg": "web"}[path]); o != "recorded" {
			t.Errorf("%s: origin %q, want recorded", path, o)
		}
	}
	st := p.readFile("voxform.state.json")
	for _, enc := range []string{"libmp3lame", "libopus"} {
		if !strings.Contains(st, `"encoder": "master 1; ffmpeg `) || !strings.Contains(st, enc) {
			t.Errorf("the state's outputs do not record ffmpeg's identity with %s", enc)
		}
	}
	p.assertNoChanges()

	mp3 := mustRead(t, p.path("build/welcome.mp3"))
	p.mustRun("apply", "-auto-approve", "-replace", "synthesis.podcast")
	if again := mustRead(t, p.path("build/welcome.mp3")); !bytes.Equal(again, mp3) {
		t.Error("encoding the recording again gave other bytes")
	}

	// A new ffmpeg: the same one, saying another version.
	bin := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\ncase \" $* \" in *\" -version \"*) %q \"$@\" | sed '1s/^ffmpeg version \\([^ ]*\\)/ffmpeg version \\1-rebuilt/'; exit;; esac\nexec %q \"$@\"\n", real, real)
	if err := os.WriteFile(filepath.Join(bin, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	withFFmpeg := p.env
	p.env = append(slices.Clone(p.env), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	p.assertNoChanges()
	p.mustRun("apply", "-auto-approve", "-replace", "synthesis.web")
	if !strings.Contains(p.readFile("voxform.state.json"), "-rebuilt") {
		t.Error("the state does not record the new ffmpeg's version of the output made again")
	}

	// No ffmpeg at all: an encoded output lost and declared at a new path
	// is restored from the cache with what was recorded of its bytes.
	p.env = append(slices.Clone(withFFmpeg), "PATH="+t.TempDir())
	ogg := p.readFile("build/welcome.ogg")
	if err := os.Remove(p.path("build/welcome.ogg")); err != nil {
		t.Fatal(err)
	}
	p.writeFile("voxform.yaml", strings.Replace(encodedManifest("{ path: studio/welcome.wav, convert: true }"), "build/welcome.ogg", "build/site.ogg", 1))
	if _, sum := p.plan(); sum.Restore != 1 || sum.changes() != 1 {
		t.Fatalf("a lost encoded output at a new path: %+v, want one restore", sum)
	}
	p.mustRun("apply", "-auto-approve")
	if p.readFile("build/site.ogg") != ogg {
		t.Error("build/site.ogg is not the encoded output restored")
	}
	var shown map[string]struct {
		Outputs []struct {
			Path, Encoder string
		}
	}
	if err := json.Unmarshal([]byte(p.mustRun("state", "show", "synthesis.web").stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if o := shown["synthesis.web"].Outputs; len(o) != 1 || o[0].Path != "build/site.ogg" || !strings.Contains(o[0].Encoder, "libopus") {
		t.Errorf("the restored output's record: %+v, want its encoder kept", o)
	}

	// No ffmpeg at all: nothing to encode, nothing asked; an MP3
	// recording for an mp3 output is copied; making an encoded one is
	// refused at plan, naming the recording and the resource.
	p.assertNoChanges()
	p.writeFile("studio/take.mp3", string(mp3))
	p.writeFile("voxform.yaml", strings.Replace(encodedManifest("{ path: studio/welcome.wav, convert: true }"), "build/welcome.ogg", "build/site.ogg", 1)+`  copied:
    voice: n
    text: "Welcome back."
    output: build/back.mp3
    audio_config: { container: mp3, sample_rate: 16000, bitrate: 64k }
    recorded: { path: studio/take.mp3, convert: true }
`)
	p.mustRun("apply", "-auto-approve")
	if got := mustRead(t, p.path("build/back.mp3")); !bytes.Equal(got, mp3) {
		t.Error("an MP3 recording for an mp3 output is not copied byte for byte")
	}
	r := p.run("plan", "-replace", "synthesis.web")
	if r.code == 0 || !strings.Contains(r.stderr, "recordings cannot be encoded") ||
		!strings.Contains(r.stderr, "recorded: (convert: true, an ogg output) needs ffmpeg to encode opus") || !strings.Contains(r.stderr, "(needed by synthesis.web)") {
		t.Errorf("making an encoded recording without ffmpeg: want refused at plan, naming it:\n%s", r)
	}
}
