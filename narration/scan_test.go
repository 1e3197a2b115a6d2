package narration_test

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/narration"
)

// The regular expressions the scanners replace: they define what a tag and
// a run of digits are, at some 50 ns a byte.
var (
	tagRE   = regexp.MustCompile(`<([^<>\n]{1,40})>`)
	digitRE = regexp.MustCompile(`\p{Nd}+(?:[ .,:/-]?\p{Nd}+)*`)
)

// scanText builds texts from pieces that meet the scanners' edge cases:
// tags of 40 and 41 characters, unclosed and nested brackets, separators
// before and after digits, digits of other scripts, invalid UTF-8.
func scanText(r *rand.Rand) string {
	pieces := []string{"a", " ", "  ", "\n", "<", ">", "<laugh>", "<a\nb>", "<" + strings.Repeat("x", 40) + ">",
		"<" + strings.Repeat("x", 41) + ">", "<é>", "12", "1,500", "2026-10-01", "9 ", " 9", "-", ".", ",", ":", "/",
		"४२", "١٢", "１２", "\xff", "\xe0\xa5", "<1 2>", "x7y", "<<3>>"}
	var b strings.Builder
	for range r.Intn(12) {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// TestScannersMatchTheExpressions: NextTag and NextDigits find exactly what
// the regular expressions find, in the same order.
func TestScannersMatchTheExpressions(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 20_000 {
		text := scanText(r)
		var wantTags []narration.Tag
		for _, m := range tagRE.FindAllStringSubmatchIndex(text, -1) {
			wantTags = append(wantTags, narration.Tag{Name: text[m[2]:m[3]], Offset: m[0], End: m[1]})
		}
		if diff := cmp.Diff(wantTags, narration.FindTags(text)); diff != "" {
			t.Fatalf("tags of %q (-want +got):\n%s", text, diff)
		}
		var wantRuns, gotRuns [][]int
		for _, m := range digitRE.FindAllStringIndex(text, -1) {
			wantRuns = append(wantRuns, m)
		}
		for start, end, ok := narration.NextDigits(text, 0); ok; start, end, ok = narration.NextDigits(text, end) {
			gotRuns = append(gotRuns, []int{start, end})
		}
		if diff := cmp.Diff(wantRuns, gotRuns); diff != "" {
			t.Fatalf("digit runs of %q (-want +got):\n%s", text, diff)
		}
	}
}
