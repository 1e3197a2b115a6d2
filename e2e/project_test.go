package e2e_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
)

// bigProject is a generated manifest larger than the examples: syntheses
// over every transport, a batch job of uploaded recordings and an older
// batch block, so that an apply lasts long enough to be killed or
// interrupted in every phase.
type bigProject struct {
	*project
	syntheses   int
	totalChars  int64 // billable characters of every synthesis
	maxChars    int64 // the longest synthesis text
	batchFiles  int
	legacyFiles int
	clips       int // REST transcriptions (addCloneAndClips)
	outputs     int
	parallelism int
}

// words make distinct texts without digits (which the validator warns
// about, SPEC section 3).
var words = strings.Fields("amber birch cedar delta ember fern grove harbor iris juniper kestrel lotus maple")

// newBigProject writes the generated project: perBlock syntheses on each
// of the rest, sse and websocket transports, batchFiles uploaded
// recordings in one batch job and legacyFiles in the older batch API (no
// transcriptions at all when both are 0).
func newBigProject(t testing.TB, e *emu, perBlock, batchFiles, legacyFiles int) *bigProject {
	t.Helper()
	bp := &bigProject{project: newProject(t, "", e), batchFiles: batchFiles, legacyFiles: legacyFiles, parallelism: 4}
	var yaml strings.Builder
	fmt.Fprintf(&yaml, `version: 1
service:
  base_url: https://speech.example.com
  parallelism: %d
voices:
  narrator: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
`, bp.parallelism)
	for _, transport := range []string{"rest", "sse", "websocket"} {
		var csv bytes.Buffer
		csv.WriteString("key,text\n")
		for i := range perBlock {
			text := fmt.Sprintf("The %s %s line of the %s block is here.", words[i%len(words)], words[(i/len(words)+3)%len(words)], transport)
			fmt.Fprintf(&csv, "k%02d,%s\n", i, text)
			n := int64(utf8.RuneCountInString(text))
			bp.totalChars += n
			bp.maxChars = max(bp.maxChars, n)
			bp.syntheses++
		}
		bp.write(transport+".csv", csv.Bytes())
		fmt.Fprintf(&yaml, `  %[1]s_lines:
    for_each: %[1]s.csv
    voice: narrator
    transport: %[1]s
    text: "${each.value.text}"
    audio_config: { container: wav, sample_rate: 8000 }
    output: "build/%[1]s/${each.key}.wav"
`, transport)
	}
	if batchFiles+legacyFiles == 0 {
		bp.write("main.yaml", []byte(yaml.String()))
		bp.outputs = bp.syntheses
		return bp
	}
	yaml.WriteString(`transcriptions:
  calls:
    inputs: ["calls/*.wav"]
    api: batch
    model: stt-v2.5
    language_code: en-IN
    output_dir: build/calls
    formats: [json, srt]
  older:
    inputs: ["older/*.wav"]
    api: batch_legacy
    language_code: en-IN
    output_dir: build/older
    formats: [json, txt]
`)
	bp.write("main.yaml", []byte(yaml.String()))
	for i := range batchFiles {
		bp.write(fmt.Sprintf("calls/call-%02d.wav", i), speechLikeWAV(t, 180+17*i))
	}
	for i := range legacyFiles {
		bp.write(fmt.Sprintf("older/old-%02d.wav", i), speechLikeWAV(t, 150+23*i))
	}
	bp.outputs = bp.syntheses + 2*batchFiles + 2*legacyFiles
	return bp
}

func (bp *bigProject) write(rel string, b []byte) {
	bp.t.Helper()
	path := bp.path(rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		bp.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		bp.t.Fatal(err)
	}
}

// addCloneAndClips adds a second manifest file to the project: a cloned
// voice (the cloned-voice example's reference recording made into an
// embedding) speaking perBlock syntheses over rest, and clips REST
// transcriptions of 1.2 s each.
func (bp *bigProject) addCloneAndClips(perBlock, clips int) {
	bp.t.Helper()
	ref, err := os.ReadFile(filepath.Join("..", "examples", "manifests", "cloned-voice", "refs", "founder.wav"))
	if err != nil {
		bp.t.Fatal(err)
	}
	bp.write("refs/founder.wav", ref)
	var csv bytes.Buffer
	csv.WriteString("key,text\n")
	for i := range perBlock {
		text := fmt.Sprintf("The %s line spoken in the cloned voice.", words[i%len(words)])
		fmt.Fprintf(&csv, "c%02d,%s\n", i, text)
		n := int64(utf8.RuneCountInString(text))
		bp.totalChars += n
		bp.maxChars = max(bp.maxChars, n)
		bp.syntheses++
	}
	bp.write("cloned.csv", csv.Bytes())
	for i := range clips {
		bp.write(fmt.Sprintf("clips/clip-%02d.wav", i), speechLikeWAV(bp.t, 210+31*i))
	}
	bp.write("clone.yaml", []byte(`embeddings:
  founder:
    reference_audio: refs/founder.wav
    output: build/voices/founder.json
    consent: "test recording"
voices:
  founder: { model: vc-v1, embedding: founder }
syntheses:
  cloned_lines:
    for_each: cloned.csv
    voice: founder
    text: "${each.value.text}"
    audio_config: { container: wav, sample_rate: 8000 }
    output: "build/cloned/${each.key}.wav"
transcriptions:
  clips:
    inputs: ["clips/*.wav"]
    api: rest
    language_code: en-IN
    output_dir: build/clips
    formats: [json, txt]
`))
	bp.clips = clips
	bp.outputs += 1 + perBlock + 2*clips
}

// legacyJobs is how many older batch submissions the project needs (at
// most 10 files each).
func (bp *bigProject) legacyJobs() int64 { return int64((bp.legacyFiles + 9) / 10) }

// speechLikeWAV is 1.2 s of a 16 kHz tone whose loudness rises and falls
// like syllables: not silent and not a steady tone, so the service
// transcribes it (silent and tone-only audio fail, per its documents).
func speechLikeWAV(t testing.TB, freq int) []byte {
	t.Helper()
	const rate, n = 16000, 19200
	f := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, f, 2*n); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		sec := float64(i) / rate
		env := 0.15 + 0.6*math.Abs(math.Sin(2*math.Pi*2.7*sec))
		v := int16(env * 20000 * math.Sin(2*math.Pi*float64(freq)*sec))
		b.WriteByte(byte(v))
		b.WriteByte(byte(uint16(v) >> 8))
	}
	return b.Bytes()
}
