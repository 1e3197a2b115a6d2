package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/narration"
)

// TestLexiconExport: 'lexicon export' writes a lexicon as PLS to stdout
// or, with -o, to a file whole; what it writes reads back as the same
// entries; what PLS cannot say is named on stderr.
func TestLexiconExport(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{
		"words.csv":  "term,spoken,language,case\nAT&T,A T & T,hi-IN,\nSIP,सिप,hi-IN,exact\n",
		"mixed.csv":  "term,spoken,language\na,b,hi-IN\nc,d,en-IN\n",
		"every.yaml": "- {term: a, spoken: b}\n",
		"bad.csv":    "term,spoken\n,x\ny,\n",
	})
	if code := runCmd(env, "lexicon", "export", "-format", "pls", "words.csv"); code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	out := stdout.String()
	for _, want := range []string{`xml:lang="hi-IN"`, "<grapheme>AT&amp;T</grapheme>", "<alias>A T &amp; T</alias>", `xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if want := "voxform: warning: words.csv:3:1: entry \"SIP\" has case: exact, which PLS cannot say: it matches in either case there\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	back, err := narration.ParseLexicon("back.pls", []byte(out))
	if err != nil || back.Len() != 2 || back.Entries()[0].Spoken != "A T & T" {
		t.Fatalf("reading the export back: %v", err)
	}

	if code := runCmd(env, "lexicon", "export", "-lang", "hi", "-o", "out/every.pls", "every.yaml"); code == ExitOK {
		t.Errorf("export into a missing directory: exit 0")
	}
	if code := runCmd(env, "lexicon", "export", "-lang", "hi", "-o", "every.pls", "every.yaml"); code != ExitOK || stdout.Len() != 0 {
		t.Fatalf("export -o: exit %d: %q %s", code, stdout, stderr)
	}
	if l, err := narration.LoadLexicon(filepath.Join(env.Dir, "every.pls")); err != nil || l.Len() != 1 || l.Entries()[0].Language != "hi" {
		t.Errorf("every.pls: %v", err)
	}
	entries, _ := os.ReadDir(env.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left %s behind", e.Name())
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lexicon", "export", "mixed.csv"}, "mixed.csv:3:1: error: entry \"c\" is for en-IN, and the one at mixed.csv:2:1 for hi-IN: a PLS lexicon has one language (xml:lang); write each language's entries to a lexicon of its own\n" +
			"voxform: lexicon export: 1 problem(s), listed above\n"},
		{[]string{"lexicon", "export", "bad.csv"}, "bad.csv:2:1: error: term is empty\nbad.csv:3:3: error: spoken form is empty\nvoxform: lexicon export: 2 problem(s), listed above\n"},
		{[]string{"lexicon", "export", "-format", "csv", "words.csv"}, "voxform: lexicon export: -format \"csv\": the format export writes is pls\nhint: run with -h for usage\n"},
		{[]string{"lexicon", "words.csv"}, "voxform: lexicon: want a subcommand: export\nhint: run with -h for usage\n"},
		{[]string{"lexicon", "export"}, "voxform: lexicon export takes one LEXICON file\nhint: run with -h for usage\n"},
		{[]string{"lexicon", "export", "-o", "none.pls", "none.csv"}, ""},
	} {
		code := runCmd(env, c.args...)
		if code != ExitError || c.want != "" && stderr.String() != c.want {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "none.pls")); err == nil {
		t.Error("a failed export wrote its -o file")
	}
}
