package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// FuzzLoad feeds arbitrary manifests and for_each CSV files to the whole
// loader (YAML, JSON Schema, expansion, semantic rules). Nothing may panic,
// every diagnostic must have a file, and errors must not come with a
// resource list that hides them (a failed load is reported as an error).
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*/*.y*ml")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(b, []byte("key,text\na,hello 42\nb,<laugh> hi\n"))
		}
	}
	f.Add([]byte("a: &a [*a]\n"), []byte(""))
	f.Add([]byte("syntheses:\n  s: { for_each: data.csv, voice: v, text: \"${each.value.text}\", output: \"o/${each.key}.wav\" }\nvoices:\n  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }\n"),
		[]byte("key,text\nx,\"unterminated\n"))
	f.Add([]byte("x: &x {a: &y {b: *x}}\n<<: *x\n"), []byte("\xef\xbb\xbfkey\n\n"))
	// 582 bytes of nested merge keys once took over 30 s to resolve.
	f.Add(mergeBomb(), []byte(""))
	// A pattern leaving the manifest directory once walked the whole disk.
	f.Add([]byte("transcriptions:\n  t: { inputs: [\"../../../../../../**/*.wav\"], api: batch, language_code: hi-IN, output_dir: o }\n"), []byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, doc, csv []byte) {
		writeFresh(t, filepath.Join(dir, "data.csv"), csv)
		timer := time.AfterFunc(10*time.Second, func() { panic("load takes over 10 s") })
		defer timer.Stop()
		m, ds := schema.LoadSources(dir, []string{"voxform.yaml"}, [][]byte{doc}, manifest.LoadOptions{NoProbe: true})
		for _, d := range ds {
			if d.Pos.File == "" {
				t.Errorf("diagnostic without a file: %s", d)
			}
			if strings.TrimSpace(d.Message) == "" {
				t.Errorf("empty message at %s", d.Pos)
			}
		}
		if m == nil {
			t.Fatal("nil manifest from LoadSources")
		}
	})
}
