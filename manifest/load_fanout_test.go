package manifest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
)

// fanOutLimit is the wall time a fan-out test allows a load: generous, for
// a busy machine, and four times that under the race detector (which runs
// the loader several times slower, beside the browser tests of e2e in the
// suite). Each case took several seconds to minutes before the loader
// bounded its fan-out, and takes well under a second now. The search for a
// broken YAML line is bounded by its work, tested in package manifest.
const fanOutLimit = 3 * time.Second * raceSlowdown

// fanOutHead declares the voices of the fan-out cases.
const fanOutHead = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n" +
	"  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }\n"

// TestExpandedBytesLimit: the values expanded into resources are bounded
// by MaxExpandedBytes in all; the reference that crosses it is refused at
// its position, naming the limit, and the load ends at once (3,000 uses of
// a 40 KB variable took 7 s; one string of 20,000 references to it took
// 4 GB).
func TestExpandedBytesLimit(t *testing.T) {
	const limit = "brings the values expanded into resources over 67,108,864 bytes (64 MiB), the limit for one manifest"
	if manifest.MaxExpandedBytes != 64<<20 {
		t.Fatalf("MaxExpandedBytes = %d; the message above says 64 MiB", manifest.MaxExpandedBytes)
	}
	long := strings.Repeat("abcd ", 8_000) // 40,000 bytes
	t.Run("many uses", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(fanOutHead + "variables:\n  long: \"" + long + "\"\nsyntheses:\n")
		names := make([]string, 3000)
		for i := range names {
			names[i] = fmt.Sprintf("s%04d", i)
			fmt.Fprintf(&b, "  %s: { voice: v, text: \"${var.long}\", output: o/%04d.wav }\n", names[i], i)
		}
		// The voices' values, then each synthesis's voice, text and
		// output, in the order of their names.
		total := len("tts-v2.5Kaverihi-IN") + len("tts-v3.0Shivanihi-IN")
		crossing := -1
		for i := range names {
			total += len("v") + len(long)
			if total > manifest.MaxExpandedBytes {
				crossing = i
				break
			}
			total += len("o/0000.wav")
		}
		dir := t.TempDir()
		writeFile(t, dir, "voxform.yaml", b.String())
		got := errorsOf(loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true}))
		// Line 8 is the first synthesis.
		line := fmt.Sprintf("  %s: { voice: v, text: \"${var.long}\", output: o/%04d.wav }", names[crossing], crossing)
		want := fmt.Sprintf("voxform.yaml:%d:%d: error: ${var.long} %s", 8+crossing, strings.Index(line, "${")+1, limit)
		if len(got) != 1 || !strings.HasPrefix(got[0], want+"\n") {
			t.Errorf("errors %q, want one: %s", got, want)
		}
	})
	t.Run("many references in one text", func(t *testing.T) {
		// 64 MiB of text is made before the limit is crossed: slower than
		// the other cases (about 2 s alone, 6 s under the race detector),
		// so its bound is 10 s, times raceSlowdown as every bound here.
		dir := t.TempDir()
		text := strings.Repeat("${var.long}", 20_000)
		writeFile(t, dir, "voxform.yaml", fanOutHead+"variables:\n  long: \""+long+"\"\nsyntheses:\n"+
			"  s: { voice: v, output: o/s.wav, text: \""+text+"\" }\n")
		before := len("tts-v2.5Kaverihi-IN") + len("tts-v3.0Shivanihi-IN") + len("v")
		k := (manifest.MaxExpandedBytes - before) / len(long) // references within the limit
		got := errorsOf(loadWithin(t, 10*time.Second*raceSlowdown, dir, manifest.LoadOptions{NoProbe: true}))
		want := fmt.Sprintf("voxform.yaml:8:%d: error: ${var.long} %s", len(`  s: { voice: v, output: o/s.wav, text: "`)+1+k*len("${var.long}"), limit)
		if len(got) != 1 || !strings.HasPrefix(got[0], want+"\n") {
			t.Errorf("errors %q, want one: %s", got, want)
		}
	})
}

// TestSynthesesLimit: a data file of more rows than MaxSyntheses is refused
// at the first row past it and read no further (a 16 MB CSV of 600,000
// rows took 14 s).
func TestSynthesesLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+
		"syntheses:\n  a: { voice: v, text: hi, output: a.wav }\n"+
		"  s: { for_each: d.csv, voice: v, text: \"${each.value.text}\", output: \"o/${each.key}.wav\" }\n"+
		"  t: { voice: v, text: hi, output: t.wav }\n")
	var b strings.Builder
	b.WriteString("key,text\n")
	for i := 0; b.Len() < manifest.MaxDataBytes-100; i++ {
		fmt.Fprintf(&b, "k%d,hi\n", i)
	}
	writeFile(t, dir, "d.csv", b.String())
	// Synthesis a is the first, rows k0 to k(N-2) the next N-1: k(N-1)
	// (line N+1) is one too many, and synthesis t is not expanded.
	n := manifest.MaxSyntheses
	got := errorsOf(loadWithin(t, 60*time.Second, dir, manifest.LoadOptions{NoProbe: true}))
	want := []string{fmt.Sprintf(`d.csv:%d:1: error: for_each key "k%d" brings the syntheses of this manifest over %d,%03d, the limit for one manifest`, n+1, n-1, n/1000, n%1000) +
		"\nhint: split the work into several manifest directories, each with its own state"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestDocumentDataFileLimit: a JSON or YAML data file, parsed whole, is
// refused over MaxDocumentDataBytes at its for_each; a CSV file of that
// size is read.
func TestDocumentDataFileLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+
		"syntheses:\n  j: { for_each: data/d.json, voice: v, text: \"${each.value}\", output: \"j/${each.key}.wav\" }\n"+
		"  c: { for_each: data/d.csv, voice: v, text: \"${each.value.text}\", output: \"c/${each.key}.wav\" }\n")
	var j strings.Builder
	j.WriteString("[")
	for i := 0; j.Len() < manifest.MaxDocumentDataBytes; i++ {
		fmt.Fprintf(&j, "\"k%d\", ", i)
	}
	j.WriteString("\"z\"]")
	writeFile(t, dir, "data/d.json", j.String())
	writeFile(t, dir, "data/d.csv", "key,text\na,"+strings.Repeat("x", manifest.MaxDocumentDataBytes)+"\n")
	got := errorsOf(loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true}))
	want := []string{`voxform.yaml:6:18: error: for_each file "data/d.json": larger than 1,048,576 bytes (1 MiB), the limit for a JSON or YAML for_each data file (a CSV or TSV file may hold 16 MiB)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestSuggestionsBounded: "did you mean" for 5,000 unknown variables among
// 5,000 declared ones is bounded (25 million comparisons took 13 s): the
// first ones get a suggestion, the rest their other hint.
func TestSuggestionsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(fanOutHead + "variables:\n")
	for i := range 5_000 {
		fmt.Fprintf(&b, "  name%05d: x\n", i)
	}
	b.WriteString("syntheses:\n")
	for i := range 5_000 {
		fmt.Fprintf(&b, "  s%d: { voice: v, text: \"${var.nam%05dx}\", output: o/%d.wav }\n", i, i, i)
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	got := errorsOf(loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true}))
	if len(got) != 5_000 {
		t.Fatalf("%d errors, want 5,000", len(got))
	}
	suggested := 0
	for _, d := range got {
		if strings.Contains(d, "hint: did you mean") {
			suggested++
		}
	}
	if want := manifest.MaxSuggestCompares / 5_000; suggested != want {
		t.Errorf("%d errors with a suggestion, want %d", suggested, want)
	}
}

// TestCatalogNamesLimit: a catalog: block adds at most MaxCatalogNames
// names; the one past it is refused (20,000 catalog voices and as many
// voices naming unknown ones took minutes).
func TestCatalogNamesLimit(t *testing.T) {
	names := make([]string, manifest.MaxCatalogNames+1)
	for i := range names {
		names[i] = fmt.Sprintf("Voice%d", i)
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+"catalog:\n  voices:\n    tts-v2.5: ["+strings.Join(names, ", ")+"]\n")
	got := errorsOf(loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true}))
	col := len("    tts-v2.5: [") + len(strings.Join(names[:manifest.MaxCatalogNames], ", ")) + len(", ") + 1
	want := []string{fmt.Sprintf(`voxform.yaml:7:%d: error: catalog: "Voice1000" is past the 1,000 names a catalog: block may add`, col) +
		"\nhint: declare only what the service has added since this voxform was built"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestFanOutOfUnknownNames: errors repeated by every instance of a block
// (an unknown variable, an unknown voice from the data) are reported once
// per value, and their suggestions are computed once: among 5,000 voices,
// 5,000 instances naming an unknown one took 10 s.
func TestFanOutOfUnknownNames(t *testing.T) {
	var b strings.Builder
	b.WriteString(fanOutHead)
	for i := range 5_000 {
		fmt.Fprintf(&b, "  v%04d: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n", i)
	}
	b.WriteString("variables:\n  lang: hi-IN\nsyntheses:\n  s:\n    for_each: d.csv\n" +
		"    voice: \"${each.value.voice}\"\n    text: \"${var.lnag}\"\n    output: \"o/${each.key}.wav\"\n")
	var csv strings.Builder
	csv.WriteString("key,voice\n")
	for i := range 10_000 {
		fmt.Fprintf(&csv, "k%d,%s\n", i, []string{"v", "vv"}[i%2])
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	writeFile(t, dir, "d.csv", csv.String())
	got := loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true})
	want := []string{
		`voxform.yaml:5010:13: error: synthesis "s" refers to unknown voice "vv"` + "\nhint: did you mean \"v\"?",
		`voxform.yaml:5011:12: error: unknown variable "lnag" in ${var.lnag}` + "\nhint: did you mean \"lang\"?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestYAMLErrorSearchBounded: the search for the line that breaks a YAML
// block parses at most a few MiB of prefixes: in a 256 KB manifest whose
// broken line is 400 lines below its block's start it parsed 400 prefixes
// (1.4 s); now it gives up and reports yaml.v3's line.
func TestYAMLErrorSearchBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(fanOutHead + "syntheses:\n")
	for i := range 395 {
		fmt.Fprintf(&b, "  k%d: { voice: v, output: o/%d.wav, text: \"%s\" }\n", i, i, strings.Repeat("x", 600))
	}
	b.WriteString("  m:\n      model: x\n    voice: y\n")
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	got := loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true})
	want := []string{"voxform.yaml:5:1: error: invalid YAML: did not find expected key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestLargeDataFileBesideManifests: a YAML data file beside the manifests
// that the other manifests name is not parsed as a manifest when it is too
// large to be data: 4 MB of YAML rows is refused at its for_each at once
// (it was parsed as a manifest, then as data: seconds).
func TestLargeDataFileBesideManifests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+
		"syntheses:\n  s: { for_each: rows.yaml, voice: v, text: \"${each.value}\", output: \"o/${each.key}.wav\" }\n")
	var b strings.Builder
	for i := 0; b.Len() < manifest.MaxManifestBytes-20; i++ {
		fmt.Fprintf(&b, "- row%d\n", i)
	}
	writeFile(t, dir, "rows.yaml", b.String())
	got := errorsOf(loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true}))
	want := []string{`voxform.yaml:6:18: error: for_each file "rows.yaml": larger than 1,048,576 bytes (1 MiB), the limit for a JSON or YAML for_each data file (a CSV or TSV file may hold 16 MiB)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
