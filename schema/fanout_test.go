package schema_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// fanOutLimit is the wall time a fan-out test allows a load: generous, for
// a busy machine, and four times that under the race detector (which runs
// the loader several times slower, beside the browser tests of e2e in the
// suite). Each case took several seconds to minutes before the loader
// bounded its fan-out, and takes well under a second now. The search for a
// broken YAML line is bounded by its work, tested in package manifest.
const fanOutLimit = 3 * time.Second * raceSlowdown

// longText is n bytes of words with a run of digits every 39 bytes, as a
// long price list would have.
func longText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i%7 == 6 {
			fmt.Fprintf(&b, "%d ", 10+i%90)
			continue
		}
		b.WriteString("words ")
	}
	return b.String()[:n]
}

// fanOutHead declares the voices of the fan-out cases.
const fanOutHead = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n" +
	"  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }\n"

// TestLongVariableUsedManyTimes: a 40 KB variable used as the text of
// 1,500 syntheses is checked once, not once per synthesis, and gives the
// diagnostics one synthesis gives (reported at the variable): its 1,000
// runs of digits took these syntheses 30 s.
func TestLongVariableUsedManyTimes(t *testing.T) {
	manifestOf := func(n int) string {
		var b strings.Builder
		b.WriteString(fanOutHead + "variables:\n  long: \"" + longText(40_000) + "\"\nsyntheses:\n")
		for i := range n {
			fmt.Fprintf(&b, "  s%d: { voice: v, text: \"${var.long}\", output: o/%d.wav }\n", i, i)
		}
		return b.String()
	}
	one, many := t.TempDir(), t.TempDir()
	writeFile(t, one, "voxform.yaml", manifestOf(1))
	writeFile(t, many, "voxform.yaml", manifestOf(1500))
	want := loadWithin(t, fanOutLimit, one, manifest.LoadOptions{NoProbe: true})
	got := loadWithin(t, fanOutLimit, many, manifest.LoadOptions{NoProbe: true})
	if runs := len(regexp.MustCompile(`\d+`).FindAllString(longText(40_000), -1)); len(want) != runs { // a long text is split, not warned about
		t.Fatalf("%d diagnostics for one synthesis, want %d", len(want), runs)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics of 1,500 syntheses differ from one's (-one +many):\n%s", diff)
	}
}

// TestLongDefaultTextForEach: a 40 KB default text, with digits and an
// unknown audio tag, applied to each of 1,500 for_each instances is checked
// once and gives the diagnostics of one instance.
func TestLongDefaultTextForEach(t *testing.T) {
	manifestOf := func(n int) string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("k%d", i)
		}
		return fanOutHead + "defaults:\n  synthesis:\n    voice: v3\n    text: \"<laughs> " + longText(40_000) + "\"\n" +
			"syntheses:\n  s:\n    for_each: [" + strings.Join(keys, ", ") + "]\n    output: \"o/${each.key}.wav\"\n"
	}
	one, many := t.TempDir(), t.TempDir()
	writeFile(t, one, "voxform.yaml", manifestOf(1))
	writeFile(t, many, "voxform.yaml", manifestOf(1500))
	want := loadWithin(t, fanOutLimit, one, manifest.LoadOptions{NoProbe: true})
	got := loadWithin(t, fanOutLimit, many, manifest.LoadOptions{NoProbe: true})
	runs := len(regexp.MustCompile(`\d+`).FindAllString(longText(40_000), -1))
	if len(want) != runs+1 || !strings.Contains(strings.Join(want, "\n"), "unknown audio tag <laughs>") {
		t.Fatalf("%d diagnostics for one instance, want %d: the runs and the tag", len(want), runs+1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics of 1,500 instances differ from one's (-one +many):\n%s", diff)
	}
}

// TestLongTextsInADataFile: a CSV data file of 4 MB of 40 KB texts, each
// with 10,000 runs of digits, is checked in time linear in its size; the
// warnings about places inside texts stop at MaxTextWarnings, with one
// saying so.
func TestLongTextsInADataFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+
		"syntheses:\n  s: { for_each: d.csv, voice: v, text: \"${each.value.text}\", output: \"o/${each.key}.wav\" }\n")
	var b strings.Builder
	b.WriteString("key,text\n")
	for i := range 100 {
		fmt.Fprintf(&b, "k%d,%s\n", i, strings.Repeat("a 1 ", 10_000))
	}
	writeFile(t, dir, "d.csv", b.String())
	got := loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true})
	digits, more := 0, 0
	for _, d := range got {
		switch {
		case strings.Contains(d, `warning: digits "1" in text`):
			digits++
		case strings.Contains(d, "warning: more than 10,000 warnings about digits and audio tags in texts"):
			more++
		}
	}
	if digits != schema.MaxTextWarnings || more != 1 {
		t.Errorf("%d digit warnings and %d saying more are not listed; want %d and 1", digits, more, schema.MaxTextWarnings)
	}
	// The warnings in texts, the one saying there are more (texts over
	// a request's maximum are split, not warned about).
	if len(got) != schema.MaxTextWarnings+1 {
		t.Errorf("%d diagnostics, want %d", len(got), schema.MaxTextWarnings+1)
	}
}

// TestLongDigitRunQuotedShort: a warning quotes a long run of digits by its
// start and length, not whole (a 1 MB run was quoted in every warning).
func TestLongDigitRunQuotedShort(t *testing.T) {
	dir := t.TempDir()
	line := "  s: { voice: v, output: o/s.wav, text: \"call " + strings.Repeat("9", 4000) + "\" }"
	writeFile(t, dir, "voxform.yaml", fanOutHead+"syntheses:\n"+line+"\n")
	got := loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true})
	want := []string{fmt.Sprintf(`voxform.yaml:6:%d: warning`, strings.Index(line, "9")+1) + `: digits "99999999999999999999999999999999"... (4,000 characters) in text are mispronounced by the service` +
		"\nhint: spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestFanOutDiagnosticsUnchanged: a small manifest whose texts share a
// default, a variable and values (two for_each values alike, at two
// places) gets the diagnostics it got before texts were checked once per
// source: each at its place, none lost.
func TestFanOutDiagnosticsUnchanged(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", fanOutHead+`variables:
  tail: "call 98765 43210 <laugh> now"
defaults:
  synthesis:
    text: "Dial 1800 123 ${var.tail} <sigh>"
syntheses:
  a: { voice: v, output: a.wav }
  b: { voice: v3, output: b.wav }
  c: { voice: v3, output: c.wav, text: "<laughs> 42" }
  d:
    for_each: { x: "ref 7", y: "ref 7" }
    voice: v3
    text: "${each.value} and 8 <Laugh>"
    output: "d/${each.key}.wav"
`)
	got := loadWithin(t, fanOutLimit, dir, manifest.LoadOptions{NoProbe: true})
	trim := regexp.MustCompile(`\nhint: .*`)
	for i := range got {
		got[i] = trim.ReplaceAllString(got[i], "")
	}
	want := []string{
		`voxform.yaml:6:15: warning: digits "98765 43210" in text are mispronounced by the service`,
		`voxform.yaml:6:27: warning: audio tag <laugh> is removed by timbre-v2.5 and not rendered (only tts-v3.0 renders tags)`,
		`voxform.yaml:9:17: warning: digits "1800 123" in text are mispronounced by the service`,
		`voxform.yaml:13:41: warning: unknown audio tag <laughs> is stripped by the service and not rendered`,
		`voxform.yaml:13:50: warning: digits "42" in text are mispronounced by the service`,
		`voxform.yaml:15:25: warning: digits "7" in text are mispronounced by the service`,
		`voxform.yaml:15:37: warning: digits "7" in text are mispronounced by the service`,
		`voxform.yaml:17:30: warning: digits "8" in text are mispronounced by the service`,
		`voxform.yaml:17:32: warning: unknown audio tag <Laugh> is stripped by the service and not rendered`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
