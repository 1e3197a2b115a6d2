package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// convert: true, naming the encoding; with it, the plan finds ffmpeg and
// records its identity in the request, and apply encodes the recording
// with no call to the service: ffprobe reads an MP3 at the declared rate
// and an Ogg Opus file, the next plan is empty, and a replace encodes the
// same bytes again; no API key is needed. Another ffmpeg on PATH (a new version) is a free
// replace saying the encoder changed.
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
		if s := pr.Streams[0]; s.CodecName+" "+s.SampleRate != want || s.Channels != 1 || pr.Format.Duration < "1.1" {
			t.Errorf("%s: ffprobe reads %s %s, %d channel(s), %s s; want %s, mono, the recording's 1.2 s", path, s.CodecName, s.SampleRate, s.Channels, pr.Format.Duration, want)
		}
		if o := stateOrigin(t, p, "synthesis."+map[string]string{"build/welcome.mp3": "podcast", "build/welcome.ogg": "web"}[path]); o != "recorded" {
			t.Errorf("%s: origin %q, want recorded", path, o)
		}
	}
	st := p.readFile("voxform.state.json")
	for _, enc := range []string{"libmp3lame", "libopus"} {
		if !strings.Contains(st, enc) || !strings.Contains(st, "ffmpeg ") {
			t.Errorf("the state's requests do not name ffmpeg and %s", enc)
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
	p.env = append(p.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	changes, sum = p.plan()
	if sum.Replace != 2 || sum.changes() != 2 || sum.Cost.Characters != 0 {
		t.Fatalf("plan with a new ffmpeg: %+v %+v, want two free replaces", sum, changes)
	}
	for _, c := range changes {
		if len(c.Reasons) != 1 || !strings.HasPrefix(c.Reasons[0], "encoder changed (") {
			t.Errorf("%s: reasons %v, want the encoder changed", c.Address, c.Reasons)
		}
	}
	calls = e.stats(t).calls()
	p.mustRun("apply", "-auto-approve")
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("re-encoding made %d API calls, want none", n)
	}
	if !strings.Contains(p.readFile("voxform.state.json"), "-rebuilt") {
		t.Error("the state does not record the new ffmpeg's version")
	}
	p.assertNoChanges()
}
