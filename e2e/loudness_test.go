package e2e_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
)

const fivePrompts = `version: 1
voices:
  n: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  welcome: { voice: n, text: "नमस्ते, आपका स्वागत है।", output: build/welcome.wav }
  hold: { voice: n, text: "कृपया प्रतीक्षा करें।", output: build/hold.wav }
  billing: { voice: n, text: "बिलिंग के लिए एक दबाएँ।", output: build/billing.wav }
  support: { voice: n, text: "सहायता के लिए दो दबाएँ।", output: build/support.wav }
  goodbye: { voice: n, text: "धन्यवाद, फिर मिलेंगे।", output: build/goodbye.wav }
`

// withGain rewrites the 16-bit PCM WAV at rel in p with its samples
// scaled by gain, clipped to full scale: a valid WAV, louder or quieter.
func withGain(t *testing.T, p *project, rel string, gain float64) {
	t.Helper()
	b := []byte(p.readFile(rel))
	f, data, err := audio.ParseWAV(b)
	if err != nil || f.BitsPerSample != 16 {
		t.Fatalf("%s: %v (%d bits)", rel, err, f.BitsPerSample)
	}
	for i := 0; i+1 < len(data); i += 2 {
		v := float64(int16(binary.LittleEndian.Uint16(data[i:]))) * gain
		binary.LittleEndian.PutUint16(data[i:], uint16(int16(math.Max(-32768, math.Min(32767, math.Round(v))))))
	}
	p.writeFile(rel, string(b))
}

// loudnessOf reads the loudness the state records for the output of addr.
func loudnessOf(t *testing.T, p *project, addr string) map[string]any {
	t.Helper()
	var st struct {
		Resources map[string]struct {
			Outputs []struct {
				Loudness map[string]any `json:"loudness"`
			} `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	return st.Resources[addr].Outputs[0].Loudness
}

// TestVerifyLoudness: apply records each output's loudness (the manifest
// declares loudness:); verify
// -loudness passes a project of even prompts, then flags a prompt made
// 9 dB louder (and its true peak) and one made 12 dB quieter, naming each
// with its figure and the median, and not the others; figures missing from
// an older state are measured from the files; the manifest's loudness:
// block sets the limits and the flags override it.
func TestVerifyLoudness(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 3})
	p := newProject(t, "", e)
	p.writeFile("voxform.yaml", fivePrompts+"loudness: { max_deviation: 3 }\n")
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	for _, addr := range []string{"synthesis.welcome", "synthesis.goodbye"} {
		l := loudnessOf(t, p, addr)
		if i, ok := l["integrated_lufs"].(float64); !ok || i > -5 || i < -60 {
			t.Fatalf("%s: recorded loudness %v", addr, l)
		}
		if _, ok := l["true_peak_dbtp"].(float64); !ok {
			t.Fatalf("%s: no true peak in %v", addr, l)
		}
	}
	r := p.mustRun("verify", "-loudness")
	if !regexp.MustCompile(`Loudness of 5 audio output\(s\): median -\d+\.\d LUFS; 0 beyond 3 LU from it or above -1 dBTP true peak\.`).MatchString(r.stdout) {
		t.Fatalf("verify -loudness of even prompts:\n%s", r)
	}

	withGain(t, p, "build/billing.wav", 2.8)  // +8.9 dB
	withGain(t, p, "build/support.wav", 0.25) // -12 dB
	r = p.run("verify", "-loudness")
	if r.code != 1 {
		t.Fatalf("verify -loudness with outliers: %s, want exit 1", r)
	}
	loud := regexp.MustCompile(`(?m)^synthesis\.billing: build/billing\.wav: -\d+\.\d LUFS, (\d+\.\d) LU louder than the median (-\d+\.\d) LUFS \(limit 3 LU\); true peak -?\d+\.\d dBTP, above -1 dBTP$`)
	quiet := regexp.MustCompile(`(?m)^synthesis\.support: build/support\.wav: -\d+\.\d LUFS, (\d+\.\d) LU quieter than the median -\d+\.\d LUFS \(limit 3 LU\)$`)
	if !loud.MatchString(r.stdout) || !quiet.MatchString(r.stdout) {
		t.Fatalf("the outliers are not named as such:\n%s", r)
	}
	for _, ok := range []string{"welcome", "hold", "goodbye"} {
		if regexp.MustCompile(`(?m)^synthesis\.` + ok + `: .*(LUFS|dBTP)`).MatchString(r.stdout) {
			t.Errorf("synthesis.%s flagged:\n%s", ok, r)
		}
	}
	if !strings.Contains(r.stdout, "2 beyond 3 LU") || !strings.Contains(r.stdout, "2 measured now") ||
		!strings.Contains(r.stderr, "2 recorded output(s) are missing or modified; 2 audio output(s) are outside the loudness limits") {
		t.Fatalf("verify -loudness summary:\n%s", r)
	}

	// A state written before voxform measured loudness: its figures are
	// measured from the files, with the same verdict.
	st := p.readFile("voxform.state.json")
	old := regexp.MustCompile(`"loudness": \{[^}]*\},\s*`).ReplaceAllString(st, "")
	if old == st {
		t.Fatal("the state records no loudness")
	}
	p.writeFile("voxform.state.json", old)
	r = p.run("verify", "-loudness")
	if r.code != 1 || !loud.MatchString(r.stdout) || !quiet.MatchString(r.stdout) || !strings.Contains(r.stdout, "5 measured now") {
		t.Fatalf("verify -loudness of an older state:\n%s", r)
	}

	// The manifest widens the loudness limit; a flag lifts the peak limit.
	p.writeFile("voxform.yaml", fivePrompts+"loudness: { max_deviation: 15 }\n")
	r = p.run("verify", "-loudness")
	if !regexp.MustCompile(`(?m)^synthesis\.billing: build/billing\.wav: true peak -?\d+\.\d dBTP, above -1 dBTP$`).MatchString(r.stdout) ||
		strings.Contains(r.stdout, "synthesis.support: build/support.wav: -") {
		t.Fatalf("verify -loudness with loudness.max_deviation 15:\n%s", r)
	}
	r = p.run("verify", "-loudness", "-max-true-peak", "3", "-json")
	if strings.Contains(r.stdout, `"above_peak"`) || strings.Contains(r.stdout, `"outside_loudness"`) {
		t.Fatalf("verify -loudness -max-true-peak 3 flags:\n%s", r)
	}
	if r := p.run("verify", "-max-deviation", "2"); r.code != 2 && r.code != 1 || !strings.Contains(r.stderr, "go with -loudness") {
		t.Fatalf("verify -max-deviation without -loudness:\n%s", r)
	}
}

// TestPlanMarkdown: plan -markdown prints the Markdown summary on stdout
// and nothing else, and show -markdown of the saved plan prints the same.
func TestPlanMarkdown(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("voxform.yaml", twoPrompts)
	md := p.mustRun("plan", "-markdown", "-out", "release.plan")
	if !strings.HasPrefix(md.stdout, "### voxform plan\n\n**2 to add,") ||
		!strings.Contains(md.stdout, "| `+` | `synthesis.hold` | not in state | कृपया प्रतीक्षा करें। | 21 chars |") ||
		strings.Contains(md.stdout, "Saved the plan") {
		t.Fatalf("plan -markdown:\n%s", md)
	}
	if show := p.mustRun("show", "-markdown", "release.plan"); show.stdout != md.stdout {
		t.Fatalf("show -markdown differs from plan -markdown:\n%s\nplan:\n%s", show, md.stdout)
	}
	if r := p.run("plan", "-markdown", "-json"); r.code == 0 || !strings.Contains(r.stderr, "cannot be used together") {
		t.Fatalf("plan -markdown -json:\n%s", r)
	}
}
