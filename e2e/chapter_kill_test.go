package e2e_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// killChapterManifest reads a chapter in requests of at most
// killChunkChars characters, killChunkParallelism of them at once.
const killChapterManifest = `version: 1
service: { max_text_chars: %d, parallelism: %d }
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  chapter:
    voice: narrator
    text_file: chapter.txt
    audio_config: { container: wav, sample_rate: 16000 }
    output: build/chapter.wav
    cues: { json: build/chapter.json, vtt: build/chapter.vtt }
`

const (
	killChunkChars       = 400
	killChunkParallelism = 3
)

// killChapterText is n distinct Hindi sentences, a tag now and then and a
// paragraph break after every tenth.
func killChapterText(n int) string {
	var b strings.Builder
	for i := range n {
		if i%9 == 4 {
			b.WriteString("<whispers> ")
		}
		fmt.Fprintf(&b, "नदी के %s किनारे पर आज %s बच्चे खेल रहे थे। ",
			strings.Repeat("पुराने ", i%3+1), []string{"छोटे", "बड़े", "नटखट", "शांत", "थके"}[i%5]+strings.Repeat(" और", i/5%7))
		if i%10 == 9 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// TestKill9MidChapter: an apply of a chunked chapter SIGKILLed while the
// service answers a chunk (at the 14th chunk request, then at the 10th of
// the next apply), then applied again until nothing is left, bills the
// chapter once plus at most the chunks in flight at each kill (the
// parallelism, each at most a request's maximum): a chunk kept before a
// kill is never paid again (the ten or more done before each kill would
// exceed the bound).
// The joined output is valid, the cue files are recorded, verify finds
// no drift and no temporary file is left.
func TestKill9MidChapter(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	k := &killer{}
	e := startEmulatorBehind(t, emulator.Options{Seed: 11, NoEspeak: true, Latency: 20 * time.Millisecond}, k.wrap)
	p := newProject(t, "", e)
	for name, body := range map[string]string{
		"main.yaml":   fmt.Sprintf(killChapterManifest, killChunkChars, killChunkParallelism),
		"chapter.txt": killChapterText(120),
	} {
		if err := os.WriteFile(p.path(name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := chunkedPlan(t, p)
	if c.Chunks.Total < 12 {
		t.Fatalf("plan: %+v; want a chapter of a dozen chunks or more", c)
	}
	chapter := c.Cost.Characters
	point := &killPoint{phase: "a chunk mid-body", method: "POST", path: regexp.MustCompile(`^/api/v1/tts/inference$`), at: midResponse}
	kills := 0
	for _, n := range []int{14, 10} {
		killed, r := p.applyKilledAt(k, point, n)
		if !killed {
			t.Fatalf("the apply finished before its kill at chunk request %d:\n%s", n, r)
		}
		kills++
	}
	converge(t, p, 2)
	p.verify()
	assertNoTemps(t, p)
	runProbe(t, p.path("build/chapter.wav"))
	st := p.readState()
	if got := len(st.outputs()); got != 3 {
		t.Errorf("state records %d outputs, want the audio and two cue files", got)
	}

	billed := e.stats(t).BilledCharacters
	bound := chapter + int64(kills*killChunkParallelism*killChunkChars)
	t.Logf("chapter %d characters in %d chunks; billed %d after %d kills (bound %d)", chapter, c.Chunks.Total, billed, kills, bound)
	if billed < chapter || billed > bound {
		t.Errorf("billed %d characters: the chapter is %d, and at most %d chunks of %d characters were in flight at the %d kills (bound %d)",
			billed, chapter, kills*killChunkParallelism, killChunkChars, kills, bound)
	}
}
