package e2e_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// deliverManifest: three prompts delivered to every built-in format
// family and a custom profile, two chapters delivered to ACX, and a book
// of them (M4B, MP3, chapters file). %s is the custom profile's loudness
// target, %s the second chapter's title.
const deliverManifest = `version: 1
delivery_profiles:
  web:
    base: podcast
    encoding: { container: ogg, sample_rate: 48000, bitrate: 64k, bitrate_mode: vbr }
    loudness: { target: %s }
voices:
  hindi:   { model: tts-v2.5, voice: Nalini, language: hi-IN }
  english: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  welcome:
    voice: hindi
    text: "नमस्ते! हमारी सेवा में आपका स्वागत है। कृपया लाइन पर बने रहें।"
    audio_config: { container: mulaw }
    output: build/ivr/welcome.ulaw
    deliver: [telephony, amazon-connect]
  promo:
    voice: english
    text: "Thank you for calling. Our new savings plan starts this month, and you can join it from the app."
    audio_config: { container: wav, sample_rate: 24000 }
    output: build/promo.wav
    deliver: [podcast, broadcast, web]
  ch1:
    voice: hindi
    text: "अध्याय एक। गंगा के किनारे एक छोटा-सा गाँव था। सुबह होते ही मंदिर की घंटियाँ बजने लगती थीं।"
    audio_config: { container: mp3, sample_rate: 24000, bitrate: 64k }
    output: build/book/ch1.mp3
    deliver: acx
  ch2:
    voice: hindi
    text: "अध्याय दो। अगली सुबह गाँव में मेला लगा। बच्चे नए कपड़े पहनकर मैदान की ओर दौड़े।"
    audio_config: { container: mp3, sample_rate: 24000, bitrate: 64k }
    output: build/book/ch2.mp3
    deliver: acx
packages:
  book:
    title: "नदी किनारे का घर"
    author: Rampur Tales
    narrator: Nalini
    year: 2026
    language: hi-IN
    chapters:
      - { synthesis: synthesis.ch1, title: "अध्याय एक" }
      - { synthesis: synthesis.ch2, title: "%s" }
    m4b: build/book/book.m4b
    mp3: build/book/book.mp3
    chapters_json: build/book/chapters.json
`

// delivered is one line of 'verify -deliver -json'.
type delivered struct {
	Address  string `json:"address"`
	Path     string `json:"path"`
	Profile  string `json:"profile"`
	Unmade   string `json:"unmade"`
	Pass     bool   `json:"pass"`
	Measured struct {
		Codec      string   `json:"codec"`
		SampleRate int      `json:"sample_rate"`
		Channels   int      `json:"channels"`
		Seconds    float64  `json:"seconds"`
		Integrated *float64 `json:"integrated_lufs"`
		RMS        *float64 `json:"rms_db"`
		TruePeak   *float64 `json:"true_peak_dbtp"`
		SamplePeak *float64 `json:"sample_peak_db"`
	} `json:"measured"`
	Results []struct {
		Rule string `json:"rule"`
		Pass bool   `json:"pass"`
	} `json:"results"`
}

// ffmpegLevels are a file's levels as ffmpeg's own filters measure them:
// ebur128 (integrated loudness, true peak) and astats (overall RMS and
// peak level).
type ffmpegLevels struct{ integrated, truePeak, rms, peak float64 }

var (
	ebur128I  = regexp.MustCompile(`(?m)^\s+I:\s+(-?[\d.]+|-inf) LUFS`)
	ebur128TP = regexp.MustCompile(`(?m)^\s+Peak:\s+(-?[\d.]+|-inf) dBFS`)
	astatsRMS = regexp.MustCompile(`RMS level dB: (-?[\d.]+|-inf)`)
	astatsPk  = regexp.MustCompile(`Peak level dB: (-?[\d.]+|-inf)`)
)

func measureWithFFmpeg(t *testing.T, path string) ffmpegLevels {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-nostats", "-hide_banner", "-i", path, "-filter_complex",
		"[0:a]asplit[a][b];[a]ebur128=peak=true[x];[b]astats=metadata=0[y]", "-map", "[x]", "-f", "null", "-", "-map", "[y]", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg %s: %v\n%s", path, err, out)
	}
	num := func(re *regexp.Regexp) float64 { // the summary, printed last
		all := re.FindAllStringSubmatch(string(out), -1)
		if all == nil {
			t.Fatalf("ffmpeg %s: no %s in\n%s", path, re, out)
		}
		m := all[len(all)-1]
		if m[1] == "-inf" {
			return math.Inf(-1)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	return ffmpegLevels{num(ebur128I), num(ebur128TP), num(astatsRMS), num(astatsPk)}
}

func near(got *float64, want, tol float64) bool {
	if got == nil {
		return math.IsInf(want, -1)
	}
	return math.Abs(*got-want) <= tol
}

// TestDeliver: every delivered file is what its profile asks for as
// ffprobe and ffmpeg's ebur128 and astats read it, and verify -deliver
// agrees with them; the book's chapters start where the chapters' audio
// does; a profile or a chapter title changed, and a second apply, make
// no service call.
func TestDeliver(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 28})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", fmt.Sprintf(deliverManifest, "-16", "अध्याय दो"))
	p.mustRun("apply", "-auto-approve")
	r := p.run("verify", "-deliver", "-json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	checks := map[string]delivered{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var d delivered
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			continue // verify's hash findings
		}
		if d.Profile != "" {
			checks[d.Path] = d
		}
	}
	want := map[string]string{
		"build/ivr/telephony/welcome.wav": "pcm_mulaw 8000", "build/ivr/amazon-connect/welcome.wav": "pcm_mulaw 8000",
		"build/podcast/promo.mp3": "mp3 44100", "build/broadcast/promo.wav": "pcm_s24le 48000", "build/web/promo.ogg": "opus 48000",
		"build/book/acx/ch1.mp3": "mp3 44100", "build/book/acx/ch2.mp3": "mp3 44100",
	}
	if len(checks) != len(want) {
		t.Fatalf("verify -deliver checked %d files, want %d:\n%s", len(checks), len(want), r.stdout)
	}
	for path, format := range want {
		d, ok := checks[path]
		if !ok || !d.Pass {
			t.Errorf("%s: %+v, want a pass", path, d)
			continue
		}
		s := runProbe(t, p.path(path)).Streams[0]
		if got := s.CodecName + " " + s.SampleRate; got != format || s.Channels != 1 {
			t.Errorf("%s: ffprobe reads %s, %d channels; want %s, mono", path, got, s.Channels, format)
		}
		l := measureWithFFmpeg(t, p.path(path))
		m := d.Measured
		if m.Seconds >= 0.4 && !near(m.Integrated, l.integrated, 0.1) || !near(m.TruePeak, l.truePeak, 0.1) ||
			!near(m.RMS, l.rms, 0.1) || !near(m.SamplePeak, l.peak, 0.1) {
			t.Errorf("%s: verify -deliver measured %v %v %v %v, ffmpeg %+v", path, deref(m.Integrated), deref(m.TruePeak), deref(m.RMS), deref(m.SamplePeak), l)
		}
	}
	chaptersAt(t, p, []string{"अध्याय एक", "अध्याय दो"})

	calls := e.stats(t).calls()
	p.writeFile("main.yaml", fmt.Sprintf(deliverManifest, "-18", "अध्याय दो: मेला"))
	changes, _ := p.plan()
	actions := map[string]string{}
	for _, c := range changes {
		actions[c.Address] = c.Action
		if c.Cost.Characters != 0 {
			t.Errorf("%s: %s bills %d characters", c.Address, c.Action, c.Cost.Characters)
		}
	}
	if len(actions) != 2 || actions["synthesis.promo"] != "remaster" || actions["package.book"] != "remaster" {
		t.Fatalf("a profile and a title changed: %v, want promo and the book remastered", actions)
	}
	p.mustRun("apply", "-auto-approve")
	chaptersAt(t, p, []string{"अध्याय एक", "अध्याय दो: मेला"})
	if c := p.run("verify", "-deliver"); c.code != 0 {
		t.Fatalf("%s", c)
	}
	p.mustRun("apply", "-auto-approve")
	if changes, _ := p.plan(); len(changes) != 0 {
		t.Errorf("after two applies the plan has %d changes", len(changes))
	}
	if got := e.stats(t).calls(); got != calls {
		t.Errorf("remastering, repackaging and a second apply made %d service calls, want 0", got-calls)
	}
}

func deref(v *float64) float64 {
	if v == nil {
		return math.Inf(-1)
	}
	return *v
}

// chaptersAt checks that the M4B and the MP3 list the titles, each
// chapter starting within one codec frame of the end of the ones before
// it, as the chapters' ACX deliveries (mastered to the same profile)
// last; and that chapters.json says the same.
func chaptersAt(t *testing.T, p *project, titles []string) {
	t.Helper()
	var starts []float64
	at := 0.0
	for _, ch := range []string{"ch1", "ch2"} {
		starts = append(starts, at)
		at += decodedSeconds(t, p.path("build/book/acx/"+ch+".mp3"))
	}
	for _, f := range []struct {
		path  string
		frame float64
	}{{"build/book/book.m4b", 1024.0 / 44100}, {"build/book/book.mp3", 1152.0 / 44100}} {
		out, err := exec.Command("ffprobe", "-v", "error", "-show_chapters", "-of", "json", p.path(f.path)).Output()
		if err != nil {
			t.Fatalf("ffprobe -show_chapters %s: %v", f.path, err)
		}
		var doc struct {
			Chapters []struct {
				Start string            `json:"start_time"`
				Tags  map[string]string `json:"tags"`
			} `json:"chapters"`
		}
		if err := json.Unmarshal(out, &doc); err != nil || len(doc.Chapters) != len(titles) {
			t.Fatalf("%s: chapters %s (%v), want %d", f.path, out, err, len(titles))
		}
		for i, c := range doc.Chapters {
			start, _ := strconv.ParseFloat(c.Start, 64)
			if c.Tags["title"] != titles[i] || math.Abs(start-starts[i]) > f.frame+1e-3 {
				t.Errorf("%s: chapter %d %q at %.4f s, want %q at %.4f s (within a frame)", f.path, i+1, c.Tags["title"], start, titles[i], starts[i])
			}
		}
	}
	b, err := os.ReadFile(p.path("build/book/chapters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  string `json:"version"`
		Chapters []struct {
			Start float64 `json:"startTime"`
			Title string  `json:"title"`
		} `json:"chapters"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "1.2.0" || len(doc.Chapters) != len(titles) {
		t.Fatalf("chapters.json: %s (%v)", b, err)
	}
	for i, c := range doc.Chapters {
		if c.Title != titles[i] || math.Abs(c.Start-starts[i]) > 1152.0/44100+1e-3 {
			t.Errorf("chapters.json chapter %d: %q at %.4f, want %q at %.4f", i+1, c.Title, c.Start, titles[i], starts[i])
		}
	}
}

// TestDeliverKilledLeavesNoPartialFile: applies killed with SIGKILL at
// several moments of mastering and packaging leave, at every declared
// path, either nothing or a whole file (every file there decodes to its
// end), and a last apply finishes the work with no temporary file left.
func TestDeliverKilledLeavesNoPartialFile(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 28, NoEspeak: true})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", fmt.Sprintf(deliverManifest, "-16", "अध्याय दो"))
	p.mustRun("apply", "-auto-approve")
	for i, after := range []time.Duration{150 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond} {
		p.writeFile("main.yaml", fmt.Sprintf(deliverManifest, fmt.Sprint(-17-i), fmt.Sprint("अध्याय ", i)))
		cmd, _, _ := p.command("apply", "-auto-approve")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		err := filepath.WalkDir(p.path("build"), func(f string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(d.Name(), ".voxform-tmp-") || !isAudio(f) {
				return err // a temporary file is swept by the next apply
			}
			if out, err := exec.Command("ffmpeg", "-v", "error", "-xerror", "-i", f, "-f", "null", "-").CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("kill after %s: %s does not decode to its end: %v\n%s", after, f, err, out)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	p.mustRun("apply", "-auto-approve")
	if c := p.run("verify", "-deliver"); c.code != 0 {
		t.Fatalf("%s", c)
	}
	assertNoTemps(t, p)
}

func isAudio(f string) bool {
	switch filepath.Ext(f) {
	case ".wav", ".mp3", ".m4b", ".ogg":
		return true
	}
	return false
}

// decodedSeconds is how long f lasts as ffmpeg decodes it (an MP3's
// encoder delay and padding trimmed as its LAME tag says), at 44.1 kHz.
func decodedSeconds(t *testing.T, f string) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", f, "-ac", "1", "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg %s: %v", f, err)
	}
	return float64(len(out)/2) / 44100
}

// oneDelivery is a prompt delivered to podcast (MP3: mastered through
// ffmpeg) and to telephony.
const oneDelivery = `version: 1
voices:
  english: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  promo:
    voice: english
    text: "%s"
    audio_config: { container: wav, sample_rate: 24000 }
    output: build/promo.wav
    deliver: [podcast, telephony]
`

// TestDeliverFailedMasteringKeepsThePaidAudio: a text edited, then applied
// with an ffmpeg that fails every encoding: the new audio is recorded and
// billed once, the resource fails naming the delivery; the old delivered
// file stays voxform's, and the next apply (ffmpeg working) remasters it
// without a service call instead of refusing it as not voxform's.
func TestDeliverFailedMasteringKeepsThePaidAudio(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	e := startEmulator(t, emulator.Options{Seed: 28, NoEspeak: true})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", fmt.Sprintf(oneDelivery, "Our new savings plan starts this month."))
	p.mustRun("apply", "-auto-approve")
	real, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\ncase \"$*\" in *-version*|*-encoders*) exec " + real + " \"$@\";; esac\necho boom >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "ffmpeg"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	p.writeFile("main.yaml", fmt.Sprintf(oneDelivery, "Our new savings plan starts next month."))
	env := p.env
	p.env = append(append([]string(nil), env...), "PATH="+bin+":"+os.Getenv("PATH"))
	before := e.stats(t)
	r := p.run("apply", "-auto-approve")
	p.env = env
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "deliver podcast") {
		t.Fatalf("apply with a failing encoder: %s", r)
	}
	after := e.stats(t)
	if after.Syntheses-before.Syntheses != 1 {
		t.Fatalf("%d syntheses, want the one paid for", after.Syntheses-before.Syntheses)
	}
	changes, _ := p.plan()
	if len(changes) != 1 || changes[0].Action != "remaster" || changes[0].Refused != "" {
		t.Fatalf("plan after a failed mastering: %+v; want one free remaster, not refused", changes)
	}
	p.mustRun("apply", "-auto-approve")
	if got := e.stats(t).calls(); got != after.calls() {
		t.Errorf("the remaster made %d service calls", got-after.calls())
	}
	if c := p.run("verify", "-deliver"); c.code != 0 {
		t.Fatalf("%s", c)
	}
}

// TestDeliverCacheEntryOfOtherBytesIsNotTaken: a delivered file's cache
// entry rewritten to name other bytes (as a writer of a shared remote
// could) is not taken when the outputs are restored: the file is
// mastered again, to the bytes the state records.
func TestDeliverCacheEntryOfOtherBytesIsNotTaken(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 28, NoEspeak: true})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", fmt.Sprintf(oneDelivery, "Our new savings plan starts this month."))
	p.mustRun("apply", "-auto-approve")
	var st struct {
		Resources map[string]struct {
			Outputs []struct {
				Path     string `json:"path"`
				SHA256   string `json:"sha256"`
				Size     int64  `json:"size"`
				Delivery *struct {
					Fingerprint string `json:"fingerprint"`
				} `json:"delivery"`
			} `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	outs := st.Resources["synthesis.promo"].Outputs
	audio, tel := outs[0], outs[len(outs)-1]
	if tel.Delivery == nil || tel.Path != "build/telephony/promo.wav" {
		t.Fatalf("outputs %+v", outs)
	}
	var entry string
	_ = filepath.WalkDir(filepath.Dir(p.dir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == tel.Delivery.Fingerprint+".json" {
			entry = path
		}
		return nil
	})
	if entry == "" {
		t.Fatal("no cache entry of the delivered file")
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(strings.Replace(string(b), tel.SHA256, audio.SHA256, 1), fmt.Sprintf(`"size": %d`, tel.Size), fmt.Sprintf(`"size": %d`, audio.Size), 1)
	if !strings.Contains(forged, audio.SHA256) || !strings.Contains(forged, fmt.Sprintf(`"size": %d`, audio.Size)) {
		t.Fatalf("entry %s: %s", entry, b)
	}
	if err := os.WriteFile(entry, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(p.path("build")); err != nil {
		t.Fatal(err)
	}
	p.mustRun("apply", "-auto-approve")
	got := sha256.Sum256([]byte(p.readFile(tel.Path)))
	if hex.EncodeToString(got[:]) != tel.SHA256 {
		t.Fatalf("%s holds other bytes than the recorded delivery", tel.Path)
	}
}
