package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/voxform/voxform/deliver"
)

const bookHead = deliverHead + `syntheses:
  ch1: { voice: v, text: one, output: build/ch1.wav }
  part:
    for_each: [a, b]
    voice: v
    text: part
    output: build/${each.key}.wav
`

// jpeg is the start of a JPEG file: what a cover must begin with.
const jpeg = "\xff\xd8\xff\xe0 a cover"

// TestPackage: every field, the short and long forms of m4b: and mp3:,
// their default bit rates, the default profile, and the cover bound into
// the manifest's hash.
func TestPackage(t *testing.T) {
	m, ds := load(t, bookHead+`delivery_profiles:
  loud: { base: acx, loudness: { target: -19 } }
packages:
  book:
    title: "अध्याय"
    author: A. Author
    narrator: N. Narrator
    year: 2026
    language: hi-IN
    cover: art/cover.jpg
    profile: loud
    chapters:
      - { synthesis: synthesis.ch1, title: "अध्याय 1" }
      - { synthesis: 'synthesis.part["b"]', title: Two }
    m4b: { output: build/book.m4a, bitrate: 96k }
    mp3: build/book.mp3
    chapters_json: build/chapters.json
  short:
    title: Short
    chapters: [{ synthesis: 'synthesis.part["a"]', title: A }]
    m4b: build/short.m4b
`, map[string]string{"art/cover.jpg": jpeg}, LoadOptions{})
	wantDiags(t, ds)
	want := []*Package{{
		Name: "book", Address: "package.book",
		Chapters: []Chapter{{Synthesis: "synthesis.ch1", Title: "अध्याय 1", Pos: Pos{File: "voxform.yaml", Line: 23, Col: 22}},
			{Synthesis: `synthesis.part["b"]`, Title: "Two", Pos: Pos{File: "voxform.yaml", Line: 24, Col: 23}}},
		Meta:    BookMeta{Title: "अध्याय", Author: "A. Author", Narrator: "N. Narrator", Year: 2026, Language: "hi-IN"},
		Cover:   "art/cover.jpg",
		Profile: m.DeliveryProfiles["loud"],
		M4B:     &BookFile{Output: "build/book.m4a", Bitrate: 96000}, MP3: &BookFile{Output: "build/book.mp3", Bitrate: DefaultMP3Bitrate},
		ChaptersJSON: "build/chapters.json", Pos: Pos{File: "voxform.yaml", Line: 14, Col: 3},
	}, {
		Name: "short", Address: "package.short",
		Chapters: []Chapter{{Synthesis: `synthesis.part["a"]`, Title: "A", Pos: Pos{File: "voxform.yaml", Line: 30, Col: 30}}},
		Meta:     BookMeta{Title: "Short"}, Profile: deliver.Builtin("acx"),
		M4B: &BookFile{Output: "build/short.m4b", Bitrate: DefaultM4BBitrate}, Pos: Pos{File: "voxform.yaml", Line: 28, Col: 3},
	}}
	if diff := cmp.Diff(want, m.Packages, cmpopts.IgnoreFields(Package{}, "Fields")); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
	if p := m.Packages[0].Fields["m4b.bitrate"]; p.Line != 25 {
		t.Errorf("m4b.bitrate at %v", p)
	}
	_, ds2 := load(t, bookHead+`packages:
  book: { title: T, cover: art/cover.jpg, chapters: [{ synthesis: synthesis.ch1, title: One }], mp3: b.mp3 }
`, map[string]string{"art/cover.jpg": jpeg}, LoadOptions{})
	m2, _ := load(t, bookHead+`packages:
  book: { title: T, cover: art/cover.jpg, chapters: [{ synthesis: synthesis.ch1, title: One }], mp3: b.mp3 }
`, map[string]string{"art/cover.jpg": jpeg + "changed"}, LoadOptions{})
	m1, _ := load(t, bookHead+`packages:
  book: { title: T, cover: art/cover.jpg, chapters: [{ synthesis: synthesis.ch1, title: One }], mp3: b.mp3 }
`, map[string]string{"art/cover.jpg": jpeg}, LoadOptions{})
	wantDiags(t, ds2)
	if m1.Hash == m2.Hash {
		t.Errorf("a changed cover leaves the manifest's hash alone")
	}
}

// TestPackageErrors: every refused package field, at its position.
func TestPackageErrors(t *testing.T) {
	long := strings.Repeat("ल", MaxTitleChars+1)
	_, ds := load(t, bookHead+`packages:
  notitle: { chapters: [{ synthesis: synthesis.ch1, title: A }], mp3: a.mp3 }
  nobook: { title: T, chapters: [{ synthesis: synthesis.ch1, title: A }] }
  nochapters: { title: T, chapters: [], mp3: b.mp3 }
  chapters:
    title: "`+long+`"
    author: "	tab"
    year: 20260
    language: hindi
    cover: ../cover.jpg
    profile: acxx
    chapters:
      - { synthesis: synthesis.ch2, title: A }
      - { synthesis: synthesis.part, title: B }
      - { synthesis: 'synthesis.part["c"]', title: C }
      - { synthesis: voice.v, title: D }
      - { synthesis: synthesis.ch1, title: E }
      - { synthesis: synthesis.ch1, title: F }
      - { synthesis: synthesis.ch1 }
      - { synthesis: 'synthesis.part["a"]', title: "" }
    m4b: build/book.mp4
    mp3: { output: build/book.mp3, bitrate: 9000000k }
    chapters_json: build/chapters.txt
  files:
    title: T
    cover: notimage.txt
    chapters: [{ synthesis: synthesis.ch1, title: A }]
    m4b: { bitrate: 64k }
    mp3: { output: x.mp3, bitrate: 500k }
`, map[string]string{"notimage.txt": "hello"}, LoadOptions{})
	wantDiags(t, ds,
		`voxform.yaml:12:3: error: package "notitle" has no title`,
		`voxform.yaml:13:3: error: package "nobook" writes no book: it has neither m4b: nor mp3:`,
		`voxform.yaml:14:37: error: package "nochapters" has no chapters`,
		`voxform.yaml:16:12: error: title is 501 characters long, over 500, the limit for a title or name`,
		`voxform.yaml:17:13: error: author holds a control character (a line break, a tab, ...)`,
		`voxform.yaml:18:11: error: year 20260 is not a year from 1 to 9999`,
		`voxform.yaml:19:15: error: language "hindi" is not a BCP 47 language tag`,
		`voxform.yaml:20:12: error: cover "../cover.jpg" is outside the manifest directory`,
		`voxform.yaml:21:14: error: profile: unknown delivery profile "acxx" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: none)`,
		`voxform.yaml:23:22: error: chapter synthesis synthesis.ch2 is not declared`,
		`voxform.yaml:24:22: error: chapter synthesis synthesis.part is not declared`,
		`voxform.yaml:25:23: error: chapter synthesis synthesis.part["c"] is not declared`,
		`voxform.yaml:26:22: error: chapter synthesis "voice.v" is not a synthesis's address`,
		`voxform.yaml:28:22: error: chapter synthesis.ch1 is already chapter 5 of package "chapters"`,
		`voxform.yaml:29:9: error: chapter has no title`,
		`voxform.yaml:30:52: error: title is empty`,
		`voxform.yaml:31:10: error: m4b: output "build/book.mp4" is not a .m4b or .m4a file`,
		`voxform.yaml:32:45: error: mp3.bitrate: want a bit rate like "192k" or a number of bits per second, not "9000000k"`,
		`voxform.yaml:33:20: error: chapters_json: output "build/chapters.txt" is not a .json file`,
		`voxform.yaml:36:12: error: cover "notimage.txt": not a JPEG or PNG image`,
		`voxform.yaml:38:10: error: m4b: has no output`,
		`voxform.yaml:39:36: error: mp3: bitrate: 500000 bit/s is outside 6 to 320 kbps`,
	)
}

// TestPackageChapterBound: the chapter past MaxChapters is refused,
// naming the bound.
func TestPackageChapterBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(deliverHead + "syntheses:\n  ch:\n    for_each: [")
	for i := range MaxChapters + 1 {
		fmt.Fprintf(&b, "c%d, ", i)
	}
	b.WriteString("]\n    voice: v\n    text: t\n    output: b/${each.key}.wav\npackages:\n  book:\n    title: T\n    mp3: b.mp3\n    chapters:\n")
	for i := range MaxChapters + 1 {
		fmt.Fprintf(&b, "      - { synthesis: 'synthesis.ch[\"c%d\"]', title: C }\n", i)
	}
	_, ds := load(t, b.String(), nil, LoadOptions{})
	wantDiags(t, ds, `voxform.yaml:1015:9: error: chapter 1001 is past the 1,000 chapters a package may have`)
}

// TestPackageBound: the package past MaxPackages is refused, naming the
// bound.
func TestPackageBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(bookHead + "packages:\n")
	for i := range MaxPackages + 1 {
		fmt.Fprintf(&b, "  p%03d: { title: T, mp3: b%d.mp3, chapters: [{ synthesis: synthesis.ch1, title: C }] }\n", i, i)
	}
	m, ds := load(t, b.String(), nil, LoadOptions{})
	wantDiags(t, ds, `voxform.yaml:76:3: error: package "p064" is past the 64 packages a manifest may declare`)
	if len(m.Packages) != MaxPackages {
		t.Errorf("%d packages", len(m.Packages))
	}
}

// TestPackageRefusedChapter: a chapter naming a synthesis whose block
// was refused (reported there) is not reported a second time; one naming
// a block that is not declared is, with a suggestion.
func TestPackageRefusedChapter(t *testing.T) {
	_, ds := load(t, deliverHead+`syntheses:
  bad: { voice: nobody, text: t, output: a.wav }
  intro: { voice: v, text: t, output: b.wav }
packages:
  book:
    title: T
    mp3: b.mp3
    chapters:
      - { synthesis: synthesis.bad, title: A }
      - { synthesis: synthesis.intra, title: B }
`, nil, LoadOptions{})
	wantDiags(t, ds,
		`voxform.yaml:5:17: error: synthesis "bad" refers to unknown voice "nobody"`,
		`voxform.yaml:13:22: error: chapter synthesis synthesis.intra is not declared`,
	)
	for _, d := range ds {
		if strings.Contains(d.Message, "intra") && d.Hint != "did you mean synthesis.intro?" {
			t.Errorf("hint %q", d.Hint)
		}
	}
}

// TestDeliveryOddShapes: nulls, lists and maps where the language wants
// something else give positioned errors, never a panic (Expand alone,
// without the JSON Schema's types in front of it).
func TestDeliveryOddShapes(t *testing.T) {
	_, ds := load(t, deliverHead+`delivery_profiles:
  nil: null
  enc: { encoding: null }
  listy: { base: acx, head: [1], encoding: [mp3], peak: 3 }
packages:
  nil: null
  shapes: { title: [T], chapters: [null, 3, { synthesis: [x], title: T }], m4b: [], mp3: { output: null }, year: x }
  nulls: { title: null, chapters: [{ synthesis: null, title: T }], mp3: { output: null } }
syntheses:
  ch1: { voice: v, text: one, output: build/ch1.wav }
  s1: { voice: v, text: t, output: a.wav, deliver: [null, ~, [], {}, { profile: null }] }
  s2: { voice: v, text: t, output: b.wav, deliver: { profile: acx, output: [x] } }
`, nil, LoadOptions{})
	wantDiags(t, ds,
		`voxform.yaml:5:3: error: delivery profile "nil" has no encoding and no base`,
		`voxform.yaml:6:20: error: delivery profile "enc": encoding: want a map of container, codec, sample_rate, channels, bitrate, bitrate_mode`,
		`voxform.yaml:7:29: error: delivery profile "listy": head: want a number of seconds, or a map of seconds, min, max, tone`,
		`voxform.yaml:7:44: error: delivery profile "listy": encoding: want a map of container, codec, sample_rate, channels, bitrate, bitrate_mode`,
		`voxform.yaml:7:57: error: delivery profile "listy": peak: want a map of measure and max`,
		`voxform.yaml:9:3: error: package "nil" has no chapters`,
		`voxform.yaml:9:3: error: package "nil" has no title`,
		`voxform.yaml:9:3: error: package "nil" writes no book: it has neither m4b: nor mp3:`,
		`voxform.yaml:10:20: error: title: want a string, not a list`,
		`voxform.yaml:10:36: error: chapter: want a map of synthesis and title`,
		`voxform.yaml:10:42: error: chapter: want a map of synthesis and title`,
		`voxform.yaml:10:58: error: synthesis: want a string, not a list`,
		`voxform.yaml:10:81: error: m4b: want a string, not a list`,
		`voxform.yaml:10:90: error: mp3: has no output`,
		`voxform.yaml:10:114: error: year: want an integer, not "x"`,
		`voxform.yaml:11:3: error: package "nulls" has no title`,
		`voxform.yaml:11:36: error: chapter has no synthesis`,
		`voxform.yaml:11:73: error: mp3: has no output`,
		`voxform.yaml:14:53: error: deliver: this entry is empty`,
		`voxform.yaml:14:59: error: deliver: this entry is empty`,
		`voxform.yaml:14:62: error: deliver: want a profile name or {profile, output}`,
		`voxform.yaml:14:66: error: deliver: this entry names no profile`,
		`voxform.yaml:14:70: error: deliver: this entry names no profile`,
		`voxform.yaml:15:76: error: output: want a string, not a list`,
	)
}
