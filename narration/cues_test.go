package narration_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/narration"
)

var testCues = []narration.Cue{
	{Start: 0, End: 12345 * time.Millisecond, Text: "<whispers>पहला अध्याय।"},
	{Start: 12345 * time.Millisecond, End: 3*time.Hour + 25*time.Minute + 7*time.Second + 1500*time.Microsecond,
		Text: "A --> B & <c>\n\n  second line \r\n"},
	{Start: 3*time.Hour + 25*time.Minute + 7*time.Second + 2*time.Millisecond, End: 100 * time.Hour, Text: "\"quoted\"\tand \\ back"},
}

func TestJSONCues(t *testing.T) {
	var b bytes.Buffer
	c := narration.NewJSONCues(&b)
	for _, cue := range testCues {
		if err := c.Write(cue); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{"cues": [
{"index": 1, "start": 0.000, "end": 12.345, "text": "<whispers>पहला अध्याय।"},
{"index": 2, "start": 12.345, "end": 12307.002, "text": "A --> B & <c>\n\n  second line \r\n"},
{"index": 3, "start": 12307.002, "end": 360000.000, "text": "\"quoted\"\tand \\ back"}
]}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	var doc struct {
		Cues []struct {
			Index      int
			Start, End float64
			Text       string
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Cues) != 3 || doc.Cues[1].Text != testCues[1].Text {
		t.Errorf("the document does not read back: %v %+v", err, doc)
	}
	var empty bytes.Buffer
	if err := narration.NewJSONCues(&empty).Close(); err != nil || empty.String() != "{\"cues\": [\n]}\n" {
		t.Errorf("no cues: %q, %v", empty.String(), err)
	}
}

func TestVTTChapters(t *testing.T) {
	var b bytes.Buffer
	c := narration.NewVTTChapters(&b)
	for _, cue := range testCues {
		if err := c.Write(cue); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	want := `WEBVTT

1
00:00:00.000 --> 00:00:12.345
&lt;whispers&gt;पहला अध्याय।

2
00:00:12.345 --> 03:25:07.002
A --&gt; B &amp; &lt;c&gt;
second line

3
03:25:07.002 --> 100:00:00.000
"quoted"	and \ back
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	// ffmpeg's WebVTT reader takes the file: three cues at their times.
	requireTool(t, "ffprobe")
	path := filepath.Join(t.TempDir(), "chapters.vtt")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.Trim(l, ", \r"); l != "" {
			lines = append(lines, l)
		}
	}
	if got, want := strings.Join(lines, "\n"), "0.000000,12.345000\n12.345000,12294.657000\n12307.002000,347692.998000"; got != want {
		t.Errorf("ffprobe packets:\n%s\nwant:\n%s", got, want)
	}
}

// TestCueOrder: cues that go back in time, overlap or end before they
// start are refused; WebVTT also refuses an empty cue.
func TestCueOrder(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		cues []narration.Cue
		json bool // JSON accepts them
	}{
		{"negative", []narration.Cue{{Start: -s, End: s}}, false},
		{"overlap", []narration.Cue{{Start: 0, End: 2 * s}, {Start: s, End: 3 * s}}, false},
		{"backwards", []narration.Cue{{Start: 2 * s, End: s}}, false},
		{"empty", []narration.Cue{{Start: s, End: s}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, v := narration.NewJSONCues(&bytes.Buffer{}), narration.NewVTTChapters(&bytes.Buffer{})
			var jerr, verr error
			for _, c := range tt.cues {
				jerr = firstErr(jerr, j.Write(c))
				verr = firstErr(verr, v.Write(c))
			}
			if (jerr == nil) != tt.json || verr == nil {
				t.Errorf("JSON: %v, WebVTT: %v", jerr, verr)
			}
		})
	}
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// requireTool fails the test when an external tool is missing: these tests
// must never pass by skipping.
func requireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is required for this test (scripts/deps.sh installs it): %v", name, err)
	}
}
