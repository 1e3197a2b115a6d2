package executor

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// The entities of the documents below: a mobile number split over two
// segments, an Aadhaar number (valid Verhoeff digit) in Hindi number
// words, and a card number (valid Luhn digit).
const (
	mobileTail = "43210"
	cardDigits = "4111 1111 1111 1111"
)

var redactSegs = []transcript.Segment{
	{Start: 0, End: transcript.Seconds(3), Text: "my number is 98765"},
	{Start: transcript.Seconds(3), End: transcript.Seconds(5), Text: mobileTail + " thank you"},
	{Start: transcript.Seconds(5), End: transcript.Seconds(12), Text: "आधार दो तीन चार पाँच छह सात आठ नौ शून्य एक दो चार"},
	{Start: transcript.Seconds(12), End: transcript.Seconds(16), Text: "card " + cardDigits + " expiry"},
}

// redactDoc is the batch transcript JSON of redactSegs, with fields voxform
// must keep (ids, codes, numbers) and one it must drop (messages).
func redactDoc(t *testing.T) []byte {
	t.Helper()
	type seg struct {
		ID    int     `json:"segment_id"`
		Start float64 `json:"start_time"`
		End   float64 `json:"end_time"`
		Text  string  `json:"text"`
		Spk   int     `json:"speaker_id"`
	}
	doc := map[string]any{
		"job_id": "job-0001-abc", "language_code": "hi-IN", "duration_seconds": 16.25,
		"full_transcript": "my number is 98765 43210 thank you", "messages": []string{"98765", "43210"},
	}
	var segs []seg
	full := []string{}
	for i, s := range redactSegs {
		segs = append(segs, seg{i, s.Start.Seconds(), s.End.Seconds(), s.Text, i % 2})
		full = append(full, s.Text)
	}
	doc["segments"] = segs
	doc["full_transcript"] = strings.Join(full, " ")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// leaks lists the entity digits (in any spelling the documents use) that
// a redacted output still holds.
func leaks(s string) []string {
	var out []string
	for _, e := range []string{"98765", mobileTail, "4111", "1111", "शून्य एक दो चार", "दो तीन चार"} {
		if strings.Contains(s, e) {
			out = append(out, e)
		}
	}
	return out
}

// TestRedactedTranscriptOutputs: with redact: every format is written
// redacted (an entity split over two segments included), the JSON keeps
// its identifiers and numbers, the unredacted document is kept only when
// asked, owner-readable only, and no scratch copy is left.
func TestRedactedTranscriptOutputs(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		root, err := owned.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		ws := &outputs{dir: dir, root: root}
		tr := &manifest.Transcription{Formats: []string{"json", "txt", "srt", "vtt"},
			Outputs: map[string]string{"json": "out/c.json", "txt": "out/c.txt", "srt": "out/c.srt", "vtt": "out/c.vtt"},
			Redact:  &manifest.Redaction{Kinds: []string{"all"}, KeepUnredacted: keep}}
		a := &planner.Action{Address: `transcription.calls["c.wav"]`, Desired: (&planner.Desired{}).WithDetails(planner.DesiredDetails{Transcription: tr})}
		doc := redactDoc(t)
		outs, red, err := writeTranscripts(ws, a, func(w io.Writer) error { _, err := w.Write(doc); return err }, redactSegs, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 4 || red == nil || red.Policy != "mobile,aadhaar,pan,card,bank_account,ifsc,upi,email" && red.Policy == "" {
			t.Fatalf("outputs %v, redaction %+v", outs, red)
		}
		for _, o := range outs {
			b, err := os.ReadFile(filepath.Join(dir, o.Path))
			if err != nil {
				t.Fatal(err)
			}
			if l := leaks(string(b)); len(l) > 0 {
				t.Errorf("keep=%v: %s holds %q:\n%s", keep, o.Path, l, b)
			}
			if o.Format != "json" && !strings.Contains(string(b), "[MOBILE]") {
				t.Errorf("%s has no [MOBILE]:\n%s", o.Path, b)
			}
		}
		jb, _ := os.ReadFile(filepath.Join(dir, "out/c.json"))
		var got map[string]any
		if err := json.Unmarshal(jb, &got); err != nil {
			t.Fatalf("redacted json: %v\n%s", err, jb)
		}
		if got["job_id"] != "job-0001-abc" || got["duration_seconds"] != 16.25 || got["messages"] != nil {
			t.Errorf("redacted json lost or kept the wrong fields: %s", jb)
		}
		if !bytes.Contains(jb, []byte(`"[AADHAAR]"`)) && !bytes.Contains(jb, []byte(`[AADHAAR]`)) {
			t.Errorf("no [AADHAAR] in %s", jb)
		}
		kept := filepath.Join(dir, state.UnredactedPath(a.Address))
		st, err := os.Stat(kept)
		switch {
		case keep && err != nil:
			t.Errorf("keep_unredacted: %v", err)
		case keep && st.Mode().Perm() != 0o600:
			t.Errorf("kept transcript mode %v, want 0600", st.Mode().Perm())
		case keep && (red.Unredacted == nil || red.Unredacted.Path != state.UnredactedPath(a.Address)):
			t.Errorf("kept transcript not recorded: %+v", red.Unredacted)
		case !keep && (err == nil || red.Unredacted != nil):
			t.Errorf("an unredacted transcript was kept without keep_unredacted")
		}
		if keep {
			if dst, _ := os.Stat(filepath.Dir(kept)); dst.Mode().Perm() != 0o700 {
				t.Errorf("kept directory mode %v, want 0700", dst.Mode().Perm())
			}
			if kb, _ := os.ReadFile(kept); !bytes.Equal(kb, doc) {
				t.Error("the kept transcript is not the document as the service answered")
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, state.UnredactedDir, ".tmp-*")); len(left) > 0 {
			t.Errorf("scratch copies left: %v", left)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "out", ".*")); len(left) > 0 {
			t.Errorf("temporary files left beside the outputs: %v", left)
		}
	}
}

// TestRedactJSONKeepsShape: strings are redacted wherever they are (an
// identifier's field included: nothing is exempt), keys too, a number an
// identifier could be is null, other numbers are written as they were,
// segment texts are found as DecodeJSON finds them (keys folded), and a
// document with a key twice in an object, or trailing data, is refused.
func TestRedactJSONKeepsShape(t *testing.T) {
	p, err := redact.NewPolicy([]string{"mobile", "email"})
	if err != nil {
		t.Fatal(err)
	}
	src := `{"request_id":"9876543210","transcript":"call 9876543210 or a@b.co","n":1.50,"m":9123456789,"x":[true,null,{"note":"9123456789","9876543210":1}]}`
	var b bytes.Buffer
	if err := redactJSON(&b, strings.NewReader(src), p, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"request_id":"[MOBILE]","transcript":"call [MOBILE] or [EMAIL]","n":1.50,"m":null,"x":[true,null,{"note":"[MOBILE]","[MOBILE]":1}]}`
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	if err := redactJSON(io.Discard, strings.NewReader(src+"{}"), p, nil, nil); err == nil {
		t.Error("trailing data accepted")
	}
	// A number read over two segments: only the segments' context finds
	// it, so the JSON must take the redacted segments, whatever the case
	// of its keys; a second "segments" would make that uncertain.
	heard := []transcript.Segment{{Text: "my number is 98765"}, {Text: "43210 thanks"}}
	red, _, _, err := redactSegments(p, heard)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"ſegments":[{"TEXT":"my number is 98765"},{"text":"43210 thanks"}]}`
	b.Reset()
	if err := redactJSON(&b, strings.NewReader(doc), p, heard, red); err != nil || strings.Contains(b.String(), "98765") || strings.Contains(b.String(), "43210") {
		t.Errorf("folded keys: %s %v", b.String(), err)
	}
	for _, dup := range []string{
		`{"segments":[{"text":"a"}],"Segments":[{"text":"b"}]}`,
		`{"segments":[{"text":"a","text":"b"}]}`,
	} {
		if err := redactJSON(io.Discard, strings.NewReader(dup), p, nil, nil); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: %v", dup, err)
		}
	}
}

// TestRedactBySpeaker: a number one party reads over two segments is
// found across the other party's word between them, and a number the
// other party says right after never hides it.
func TestRedactBySpeaker(t *testing.T) {
	p, _ := redact.NewPolicy([]string{"all"})
	segs := []transcript.Segment{
		{Speaker: "customer", Text: "my number is 98765"},
		{Speaker: "agent", Text: "okay"},
		{Speaker: "customer", Text: "43210"},
		{Speaker: "customer", Text: "मेरा नंबर है 9123456789"},
		{Speaker: "agent", Text: "10 बजे के बाद कॉल करें"},
	}
	red, spans, _, err := redactSegments(p, segs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"my number is [MOBILE]", "okay", "[MOBILE]", "मेरा नंबर है [MOBILE]", "10 बजे के बाद कॉल करें"} {
		if red[i].Text != want {
			t.Errorf("segment %d: %q, want %q", i, red[i].Text, want)
		}
	}
	if len(spans[1]) != 0 || len(spans[4]) != 0 {
		t.Errorf("the agent's words were redacted: %v", spans)
	}
}

// TestMuteRangesFailClosed: a span in a segment without duration silences
// the gap where its words must be, and a span reaching a segment's edge
// is padded past it.
func TestMuteRangesFailClosed(t *testing.T) {
	p, _ := redact.NewPolicy([]string{"mobile"})
	segs := []transcript.Segment{
		{Start: 0, End: transcript.Seconds(2), Text: "hello there"},
		{Start: transcript.Seconds(5), End: transcript.Seconds(5), Text: "my number is 9876543210"},
		{Start: transcript.Seconds(8), End: transcript.Seconds(10), Text: "9123456789"},
	}
	r := &redaction{policy: p, heard: segs}
	var err error
	if r.segs, r.spans, r.whole, err = redactSegments(p, segs); err != nil {
		t.Fatal(err)
	}
	got := muteRanges(r)
	if len(got) != 2 {
		t.Fatalf("ranges %v", got)
	}
	if got[0].From > transcript.Seconds(2) || got[0].To < transcript.Seconds(8) {
		t.Errorf("a segment without duration silences %v, want the gap 2s-8s", got[0])
	}
	if got[1].From >= transcript.Seconds(8) || got[1].To <= transcript.Seconds(10) {
		t.Errorf("a span filling its segment silences %v, want past 8s-10s", got[1])
	}
}
