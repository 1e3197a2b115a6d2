package transcript_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/voxform/voxform/transcript"
)

var update = flag.Bool("update", false, "rewrite golden files")

func sec(f float64) time.Duration { return transcript.Seconds(f) }

var cases = []struct {
	name string
	segs []transcript.Segment
	opts transcript.Options
}{
	{"plain", []transcript.Segment{
		{Start: 0, End: sec(1.5), Text: "Hello there."},
		{Start: sec(1.5), End: sec(4.25), Text: "Welcome to the support line, how can we help you today?"},
		{Start: sec(4.25), End: sec(4.25), Text: "   "},
		{Start: sec(5), End: sec(3725.5), Text: "An hour later <and> the call & its -->arrow end."},
	}, transcript.Options{}},
	{"diarized", []transcript.Segment{
		{Start: 0, End: sec(2), Text: "Good morning, this is Asha from billing.", Speaker: "Speaker 1"},
		{Start: sec(2), End: sec(3), Text: "Hi Asha.", Speaker: "Speaker 2"},
		{Start: sec(3), End: sec(5), Text: "I have a question about my bill.", Speaker: "Speaker 2"},
		{Start: sec(5), End: sec(6), Text: "Sure.", Speaker: "Speaker 1"},
	}, transcript.Options{}},
	{"long_segment", []transcript.Segment{
		{Start: sec(10), End: sec(40), Text: strings.Repeat("the quick brown fox jumps over the lazy dog ", 6) + "supercalifragilisticexpialidocious-and-then-some-more end"},
	}, transcript.Options{MaxLineLength: 32, TextWidth: 40}},
	{"hindi", []transcript.Segment{
		{Start: 0, End: sec(3.2), Text: "नमस्ते, आपका स्वागत है। कृपया अपना खाता संख्या बताइए।"},
	}, transcript.Options{MaxLineLength: 20}},
}

// TestRenderGolden checks every format against golden files under
// testdata (refresh with -update), and that ffprobe reads each srt and vtt.
func TestRenderGolden(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Fatalf("ffprobe is required to check subtitle files (scripts/deps.sh installs it): %v", err)
	}
	for _, tc := range cases {
		for _, f := range []transcript.Format{transcript.TXT, transcript.SRT, transcript.VTT} {
			t.Run(tc.name+"."+string(f), func(t *testing.T) {
				var buf bytes.Buffer
				if err := transcript.RenderSlice(&buf, f, tc.segs, tc.opts); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", tc.name+"."+string(f))
				if *update {
					if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("read golden (run with -update to create): %v", err)
				}
				if d := cmp.Diff(string(want), buf.String()); d != "" {
					t.Errorf("%s differs from golden (-want +got):\n%s", golden, d)
				}
				if f != transcript.TXT {
					ffprobe(t, golden)
				}
			})
		}
	}
}

// ffprobe checks that ffprobe reads the subtitle file and finds one packet
// per cue, starting where the cue's timing line says.
func ffprobe(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "packet=pts_time",
		"-of", "csv=p=0", "-i", path).Output()
	if err != nil {
		t.Fatalf("ffprobe -i %s: %v", path, err)
	}
	var got []string
	for _, l := range strings.Fields(string(out)) {
		got = append(got, strings.TrimRight(l, ","))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(data), "\n") {
		if start, _, ok := strings.Cut(l, " --> "); ok {
			d := parseSRT(t, strings.Replace(start, ".", ",", 1))
			want = append(want, fmt.Sprintf("%.6f", d.Seconds()))
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ffprobe packets of %s differ from the cues (-cues +ffprobe):\n%s", path, d)
	}
}

// TestLineLimits checks that no cue line exceeds the limit unless it is a
// single over-long word, that cues hold at most MaxLines lines, and that no
// cue outlasts MaxCueDuration when there are words enough to split.
func TestLineLimits(t *testing.T) {
	long := transcript.Segment{Start: 0, End: sec(60), Text: strings.Repeat("alpha beta gamma delta ", 40)}
	for _, width := range []int{10, 20, 42} {
		t.Run("width", func(t *testing.T) {
			var buf bytes.Buffer
			opts := transcript.Options{MaxLineLength: width, MaxLines: 2, MaxCueDuration: 5 * time.Second}
			if err := transcript.RenderSlice(&buf, transcript.SRT, []transcript.Segment{long}, opts); err != nil {
				t.Fatal(err)
			}
			for _, block := range strings.Split(strings.TrimSpace(buf.String()), "\n\n") {
				lines := strings.Split(block, "\n")
				if len(lines) < 3 || len(lines) > 4 {
					t.Fatalf("cue has %d text lines: %q", len(lines)-2, block)
				}
				start, end, ok := strings.Cut(lines[1], " --> ")
				if !ok {
					t.Fatalf("bad timing line %q", lines[1])
				}
				if d := parseSRT(t, end) - parseSRT(t, start); d > 5*time.Second {
					t.Errorf("cue lasts %v > 5s: %q", d, block)
				}
				for _, l := range lines[2:] {
					if n := len([]rune(l)); n > width && strings.Contains(l, " ") {
						t.Errorf("line of %d runes > %d: %q", n, width, l)
					}
				}
			}
		})
	}
}

func parseSRT(t *testing.T, s string) time.Duration {
	t.Helper()
	var h, m, sec, ms int
	if _, err := fmtSscanf(s, &h, &m, &sec, &ms); err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond
}

func TestTimestamps(t *testing.T) {
	tests := []struct {
		d        time.Duration
		srt, vtt string
	}{
		{0, "00:00:00,000", "00:00:00.000"},
		{time.Second, "00:00:01,000", "00:00:01.000"},
		{sec(3725.0456), "01:02:05,046", "01:02:05.046"},
		{-time.Second, "00:00:00,000", "00:00:00.000"},
	}
	for _, tc := range tests {
		if got := transcript.FormatSRTTime(tc.d); got != tc.srt {
			t.Errorf("FormatSRTTime(%v) = %q, want %q", tc.d, got, tc.srt)
		}
		if got := transcript.FormatVTTTime(tc.d); got != tc.vtt {
			t.Errorf("FormatVTTTime(%v) = %q, want %q", tc.d, got, tc.vtt)
		}
	}
}

func TestParseJSON(t *testing.T) {
	doc := `{"file_id":"f1","segments":[{"segment_id":0,"start_time":0.5,"end_time":1.25,"text":"hi","speaker_id":0,"confidence":null},
	{"segment_id":1,"start_time":1.25,"end_time":2,"text":"hello","speaker_id":1}],"full_transcript":"hi hello"}`
	got, err := transcript.ParseJSON(strings.NewReader(doc), transcript.Labels{Speakers: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript.Segment{
		{Start: 500 * time.Millisecond, End: 1250 * time.Millisecond, Text: "hi", Speaker: "Speaker 1"},
		{Start: 1250 * time.Millisecond, End: 2 * time.Second, Text: "hello", Speaker: "Speaker 2"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
	if _, err := transcript.ParseJSON(strings.NewReader(`{"segments":[{"start_time":-1}]}`), transcript.Labels{}); err == nil {
		t.Error("negative start time accepted")
	}
	if _, err := transcript.ParseJSON(strings.NewReader(`{"segments":`), transcript.Labels{}); err == nil {
		t.Error("truncated json accepted")
	}
}

func FuzzRender(f *testing.F) {
	f.Add("hello world", int64(0), int64(1000), 10)
	f.Add("", int64(5), int64(1), 0)
	f.Fuzz(func(t *testing.T, text string, start, end int64, width int) {
		seg := transcript.Segment{Start: time.Duration(start) * time.Millisecond, End: time.Duration(end) * time.Millisecond, Text: text}
		for _, fm := range []transcript.Format{transcript.TXT, transcript.SRT, transcript.VTT} {
			var buf bytes.Buffer
			if err := transcript.RenderSlice(&buf, fm, []transcript.Segment{seg}, transcript.Options{MaxLineLength: width % 100}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
