package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// explainManifest reads a chapter from a text file with a lexicon: a term
// on a wrapped line, a year the lexicon covers, a number it does not, and
// a term after an audio tag.
var explainManifest = map[string]string{
	"voxform.yaml": `version: 1
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  chapter:
    voice: narrator
    text_file: chapter.txt
    lexicon: words.csv
    output: build/chapter.wav
  plain: { voice: narrator, text: "नमस्ते", output: build/plain.wav }
`,
	"words.csv": "term,spoken,language\n1947,उन्नीस सौ सैंतालीस,hi\nहाट,हाट बाज़ार,hi-IN\nNew Delhi,नई दिल्ली,\n",
	"chapter.txt": "अध्याय एक\n\nसन 1947 में गाँव के हाट में मेला लगा। <whispers> हाट\n" +
		"के बाद हम New\nDelhi गए और 12 दिन रहे।\n",
}

// TestValidateExplain: -explain lists each replacement at its line and
// column in the text file with the entry's line, counts the digit runs no
// entry covers (listed once, as warnings), and leaves out syntheses
// without a lexicon.
func TestValidateExplain(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, explainManifest)
	if code := Run(context.Background(), env, []string{"validate", "-explain"}); code != ExitOK {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	golden(t, "validate_explain.golden", stderr.String()+"--- stdout\n"+stdout.String())
	if n := strings.Count(stderr.String()+stdout.String(), `"12"`); n != 1 {
		t.Errorf("the uncovered digits \"12\" are quoted %d times, want once (the warning)", n)
	}
}

// TestValidateExplainBounded: a lexicon that applies thousands of times
// lists MaxExplainPerSynthesis replacements per synthesis, and
// MaxExplainTotal in all, each synthesis with the count of the rest.
func TestValidateExplainBounded(t *testing.T) {
	var m strings.Builder
	m.WriteString("version: 1\nvoices:\n  n: { model: tts-v3.0, voice: Shivani, language: hi-IN }\nsyntheses:\n")
	const syntheses, uses = 12, 60
	for i := range syntheses {
		fmt.Fprintf(&m, "  s%02d: { voice: n, text_file: t.txt, lexicon: l.csv, output: build/s%02d.wav }\n", i, i)
	}
	env, stdout, stderr := manifestEnv(t, map[string]string{
		"voxform.yaml": m.String(),
		"l.csv":        "term,spoken\nहाट,बाज़ार\n",
		"t.txt":        strings.Repeat("हाट में मेला। ", uses),
	})
	if code := Run(context.Background(), env, []string{"validate", "-explain"}); code != ExitOK {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	out := stdout.String()
	if got, want := strings.Count(out, " is sent as "), schema.MaxExplainTotal; got != want {
		t.Errorf("%d replacements listed, want %d (MaxExplainTotal)", got, want)
	}
	if got := strings.Count(out, fmt.Sprintf("lexicon l.csv, %d replacements", uses)); got != syntheses {
		t.Errorf("%d syntheses counted %d replacements, want %d", got, uses, syntheses)
	}
	first := fmt.Sprintf("... and %d more", uses-schema.MaxExplainPerSynthesis)
	if !strings.Contains(out, first) || !strings.Contains(out, fmt.Sprintf("... and %d more", uses)) {
		t.Errorf("want %q for the first syntheses and every replacement left out of the last; got\n%s", first, out)
	}
}

// golden compares got with testdata/name, rewritten with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to rewrite it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
