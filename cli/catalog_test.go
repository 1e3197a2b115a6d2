package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// conformance: TTS-001, TTS-015, TTS-017, TTS-019, TTS-027, TTS-030, TTS-032, TTS-046, TTS-052,
// STT-001, BJ-001, BJ-002
func TestCatalog(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": `version: 1
catalog:
  voices: { tts-v2.5: [Arjun] }
  recognition_languages: { batch: [gu-IN] }
`})
	if code := Run(context.Background(), env, []string{"catalog", "-profile", "documented"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := stdout.String()
	for _, want := range []string{
		"tts-v2.0  Pranav, Kaveri, Shubhra, Deepak",
		"auto, hi-IN, en-IN, ta-IN, te-IN, kn-IN, ml-IN, mr-IN, pa-IN, bn-IN, gu-IN, hi-en (required)",
		"<laugh>, <giggle>, <sigh>, <exhales>, <sniffles>, <yawns>, <coughs>, <clears throat>, <whispers>, <shouting>, <excited>, <slow>, <pauses>",
		"mulaw      -           raw G.711 mu-law      audio/basic               forced to 8000",
		"8000, 16000, 22050, 24000, 44100, 48000 (default 48000)",
		"32k, 64k, 96k, 128k, 192k (default 128k)",
		"container raw + encoding pcm_mulaw  = container mulaw",
		"bn-IN, bn-BD, en-IN, hi-IN, kn-IN, ml-IN, mr-IN, ta-IN, te-IN, gu-IN",
		"batch model: stt-v2.5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog lacks %q", want)
		}
	}
	if by := voicesByLanguage(out); by["hi-en"] != "Poorvi" || by["(not known)"] != "Arjun" {
		t.Errorf("documented voices by language: %v", by)
	}
	// The live profile, the default: its model names, and voices by the
	// language each was made for.
	stdout.Reset()
	if code := Run(context.Background(), env, []string{"catalog"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Profile live", "tts-v2.5 (timbre-v2.5)", "tts-v2.0 (timbre-v2.0)",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("live catalog lacks %q", want)
		}
	}
	byLanguage := voicesByLanguage(stdout.String())
	for lang, voices := range map[string]string{"ta-IN": "Asmita, Trisha, Brinda, Vedika, Noopur", "te-IN": "Suhana, Lehara, Lavanya, Yukti, Varuni", "(not known)": "Arjun"} {
		if byLanguage[lang] != voices {
			t.Errorf("live voices of %s: %q, want %q", lang, byLanguage[lang], voices)
		}
	}
	stdout.Reset()
	if code := Run(context.Background(), env, []string{"catalog", "-json", "-builtin", "-profile", "documented"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var cat struct {
		Models []struct {
			Name   string   `json:"name"`
			Voices []string `json:"voices"`
		} `json:"models"`
		Recognition map[string]struct {
			Languages  []string `json:"languages"`
			MaxSeconds float64  `json:"max_duration_seconds"`
		} `json:"recognition"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &cat); err != nil {
		t.Fatal(err)
	}
	if len(cat.Models) != 4 || cat.Models[1].Name != "tts-v2.5" || len(cat.Models[1].Voices) != 42 {
		t.Errorf("models (builtin, without Arjun): %+v", cat.Models)
	}
	if got := cat.Recognition["rest"].MaxSeconds; got != 60 {
		t.Errorf("rest max duration %v, want 60", got)
	}
	if got := strings.Join(cat.Recognition["batch"].Languages, ","); strings.Contains(got, "gu-IN") || strings.Contains(got, "pa-IN") {
		t.Errorf("builtin batch languages %s include gu-IN or pa-IN", got)
	}
}

// voicesByLanguage reads the lines of catalog's voices by language.
func voicesByLanguage(out string) map[string]string {
	by := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.SplitN(strings.TrimSpace(line), "  ", 2); len(f) == 2 {
			by[f[0]] = strings.TrimSpace(f[1])
		}
	}
	return by
}
