package schema_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
//
// Run it with a short minimization:
//
//	go test -fuzz FuzzLoad -fuzzminimizetime 5s ./schema/
//
// The fuzzer minimizes each new interesting input before it fuzzes on,
// trying up to n²/2 cuts of an n-byte input (tens of thousands for these
// seeds, at some 0.2 ms a load) for up to -fuzzminimizetime (60 s by
// default), and counts no executions meanwhile: with the default it shows
// 0 execs/s for a minute at a time (golang/go#48820).
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*/*.y*ml")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(b, []byte("key,text\na,hello 42\nb,<laugh> hi\n"))
		}
	}
	f.Add([]byte("a: &a [*a]\n"), []byte(""))
	f.Add([]byte("syntheses:\n  s: { for_each: data.csv, voice: v, text: \"${each.value.text}\", output: \"o/${each.key}.wav\" }\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n"),
		[]byte("key,text\nx,\"unterminated\n"))
	f.Add([]byte("x: &x {a: &y {b: *x}}\n<<: *x\n"), []byte("\xef\xbb\xbfkey\n\n"))
	// 582 bytes of nested merge keys once took over 30 s to resolve.
	f.Add(mergeBomb(), []byte(""))
	// A pattern leaving the manifest directory once walked the whole disk.
	f.Add([]byte("transcriptions:\n  t: { inputs: [\"../../../../../../**/*.wav\"], api: batch, language_code: hi-IN, output_dir: o }\n"), []byte(""))
	dir := f.TempDir()
	// The data file is written only when its bytes change. The fuzzer
	// minimizes each new interesting input before it fuzzes on, making tens
	// of thousands of calls in which only doc changes, and reports no
	// executions until it is done: rewriting the file took more than half
	// of each call, and the fuzzer seemed stalled at 0 execs/s.
	var lastCSV []byte
	written := false
	f.Fuzz(func(t *testing.T, doc, csv []byte) {
		if !written || !bytes.Equal(csv, lastCSV) {
			writeFresh(t, filepath.Join(dir, "data.csv"), csv)
			lastCSV, written = slices.Clone(csv), true
		}
		timer := time.AfterFunc(10*time.Second, func() { panic("load takes over 10 s") })
		defer timer.Stop()
		m, ds := manifest.LoadSources(dir, []string{"voxform.yaml"}, [][]byte{doc}, manifest.LoadOptions{NoProbe: true}, schema.Validator{})
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

// mergeBomb is a 582-byte manifest of 8 levels of merge keys, each level
// merging the previous anchor ten times: resolved naively it is 10^8
// merges, which took the loader over 30 s.
func mergeBomb() []byte {
	var b strings.Builder
	b.WriteString("version: 1\nx-0: &a0 {a: 1, b: 2, c: 3, d: 4, e: 5000}\n")
	for i := 1; i <= 8; i++ {
		refs := strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10)
		fmt.Fprintf(&b, "x-%d: &a%d {<<: [%s]}\n", i, i, strings.TrimSuffix(refs, ", "))
	}
	return []byte(b.String())
}
