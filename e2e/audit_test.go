package e2e_test

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/transcript"
)

// auditCalls are the call-audit example's scripts.
var auditCalls = []string{"call-0001", "call-0002"}

// auditEntities are the personal data the example's customers read out,
// as they say them: no output voxform shares may hold one.
var auditEntities = []string{
	"nine eight सात six", "three two one zero", // mobile, words
	"शून्य एक दो चार", "छह सात आठ नौ", // Aadhaar, Hindi words
	"पाँच पाँच छह सात", "0119 8704", // card, Hindi words and digits
	"98201 23456",                                // mobile, digits
	"7391 6482 0514",                             // Aadhaar, digits
	"five five five five", "four four four four", // card, words
}

// digitRun is a run of digits as a transcript writes one.
var digitRun = regexp.MustCompile(`[0-9]{4,}`)

// strayDigits lists the runs of four digits or more in a transcript's
// text that are none of the look-alikes (nor a time or a year): a part of
// an entity left behind.
func strayDigits(s string) []string {
	var out []string
	for _, d := range digitRun.FindAllString(s, -1) {
		if d != "4839201" && d != "58392017" && d != "2026" {
			out = append(out, d)
		}
	}
	return out
}

// auditLookAlikes are numbers that are not personal data: they stay.
var auditLookAlikes = []string{"4839201", "₹2,499", "58392017", "12 March 2026"}

// auditProject is the call-audit example with its recordings made by the
// emulator e, and its output cache's remote a directory (returned).
func auditProject(t *testing.T, e *emu) (*project, string) {
	p := newProject(t, "call-audit", e)
	for _, c := range auditCalls {
		p.mustRun("emulator", "conversation", "-url", e.URL, "-out", "recordings/"+c+".wav", "scripts/"+c+".yaml")
	}
	remote := t.TempDir()
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	return p, remote
}

// leaked lists the entities found in s.
func leaked(s string) []string {
	var out []string
	for _, e := range auditEntities {
		if strings.Contains(s, e) {
			out = append(out, e)
		}
	}
	return out
}

// filesLeaking lists the files below dir (skipping skip) that hold an
// entity.
func filesLeaking(t *testing.T, dir string, skip ...string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		for _, s := range skip {
			if p == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			if l := leaked(string(b)); len(l) > 0 {
				out = append(out, p+" "+strings.Join(l, ", "))
			}
		}
		return nil
	})
	return out
}

// TestCallAudit: the call-audit example end to end on the emulator. Every
// output is redacted (each entity the customers read out, in digits and
// in Hindi and English words, and none of the look-alikes), labelled by
// channel role; no entity reaches the state, the remote cache, the plan,
// the logs or the report; the unredacted transcript is kept owner-only;
// the redacted audio has the source's samples and is silent inside every
// redacted span; a narrower policy re-renders from the kept transcript
// with no call.
func TestCallAudit(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	p, remote := auditProject(t, e)
	if r := p.mustRun("validate"); strings.Contains(r.stdout+r.stderr, "warning") {
		t.Fatalf("the example validates with warnings:\n%s", r)
	}
	changes, sum := p.plan()
	if sum.Add != 2 || len(changes) != 2 {
		t.Fatalf("plan: %+v", sum)
	}
	r := p.apply()
	if r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	logs := r.stdout + r.stderr
	if strings.Contains(logs, "warning") {
		t.Errorf("apply warned:\n%s", logs)
	}
	for _, c := range auditCalls {
		for _, f := range []string{"json", "txt", "srt", "vtt"} {
			b := p.readFile("build/transcripts/" + c + "." + f)
			if l := leaked(b); len(l) > 0 {
				t.Errorf("%s.%s holds %q:\n%s", c, f, l, b)
			}
			if d := strayDigits(b); len(d) > 0 && f == "txt" {
				t.Errorf("%s.%s holds digits %q:\n%s", c, f, d, b)
			}
			if f != "json" && (!strings.Contains(b, "customer") || !strings.Contains(b, "agent")) {
				t.Errorf("%s.%s is not labelled by role:\n%s", c, f, b)
			}
		}
	}
	all := p.readFile("build/transcripts/call-0001.txt") + p.readFile("build/transcripts/call-0002.txt")
	for _, want := range []string{"[MOBILE]", "[AADHAAR]", "[CARD]"} {
		if strings.Count(all, want) < 2 {
			t.Errorf("%s is not in both calls' transcripts:\n%s", want, all)
		}
	}
	for _, keep := range auditLookAlikes {
		if !strings.Contains(all, keep) {
			t.Errorf("look-alike %q was redacted:\n%s", keep, all)
		}
	}
	// Nothing shared holds an entity: the state, the remote cache, the
	// plan (text and JSON), the logs, the report.
	kept := filepath.Join(p.dir, ".voxform", "unredacted")
	if l := filesLeaking(t, p.dir, kept, filepath.Join(p.dir, "recordings"), filepath.Join(p.dir, "scripts")); len(l) > 0 {
		t.Errorf("files in the project hold entities: %v", l)
	}
	if l := filesLeaking(t, remote); len(l) > 0 {
		t.Errorf("the remote cache holds entities: %v", l)
	}
	if n := remoteEntries(t, remote); n != 2 {
		t.Errorf("%d entries pushed to the remote cache, want the 2 transcriptions", n)
	}
	report := filepath.Join(t.TempDir(), "report")
	p.mustRun("report", "-out", report)
	if l := filesLeaking(t, report); len(l) > 0 {
		t.Errorf("the report holds entities: %v", l)
	}
	if l := leaked(logs); len(l) > 0 {
		t.Errorf("apply's output holds %q", l)
	}
	// The kept unredacted transcripts: owner-only, and holding what was
	// said (so the checks above are not vacuous).
	ks, _ := os.ReadDir(kept)
	if len(ks) != 2 {
		t.Fatalf("kept unredacted transcripts: %v", ks)
	}
	heard := ""
	for _, k := range ks {
		st, _ := os.Stat(filepath.Join(kept, k.Name()))
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", k.Name(), st.Mode().Perm())
		}
		b, _ := os.ReadFile(filepath.Join(kept, k.Name()))
		heard += string(b)
	}
	if l := leaked(heard); len(l) < len(auditEntities)-2 {
		t.Errorf("the kept transcripts hold only %q of the entities: the recordings did not say them", l)
	}
	for _, c := range auditCalls {
		checkRedactedAudio(t, p, c, kept)
	}
	p.assertNoChanges()
	// Signed provenance of every output: it verifies against the files,
	// names the recording among its inputs, and holds no entity either.
	keyDir := t.TempDir()
	p.mustRun("provenance", "keygen", filepath.Join(keyDir, "audit.key"))
	p.mustRun("provenance", "-key", filepath.Join(keyDir, "audit.key"), "-out", "provenance")
	p.mustRun("provenance", "verify", "-pub", filepath.Join(keyDir, "audit.key.pub"), "provenance")
	p.mustRun("provenance", "-out", "provenance-plain") // the statements in clear, to look into
	if l := filesLeaking(t, p.path("provenance-plain")); len(l) > 0 {
		t.Errorf("provenance holds entities: %v", l)
	}
	if b := p.readFile("provenance-plain/build/transcripts/call-0001.txt.intoto.json"); !strings.Contains(b, "recordings/call-0001.wav") || !strings.Contains(b, `"policy"`) {
		t.Errorf("the statement of call-0001.txt names neither its recording nor its redaction:\n%s", b)
	}
	for _, args := range [][]string{{"plan"}, {"plan", "-json"}, {"state", "show", `transcription.calls["recordings/call-0001.wav"]`}} {
		if l := leaked(p.mustRun(args...).stdout); len(l) > 0 {
			t.Errorf("%v holds %q", args, l)
		}
	}

	// A free repair renders from the recorded (redacted) JSON: the kept
	// transcripts stay the service's answer.
	keptBefore := readDir(t, kept)
	os.Remove(p.path("build/transcripts/call-0001.txt"))
	if r := p.apply(); r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	if got := readDir(t, kept); got != keptBefore {
		t.Error("a repair from the redacted JSON rewrote the kept unredacted transcripts")
	}

	// A narrower policy shows the card numbers again: made from the kept
	// transcript, free, with no call.
	editFile(t, p.path("main.yaml"), "kinds: all", "kinds: [mobile, aadhaar]")
	changes, sum = p.plan()
	if sum.Repair != 2 || sum.changes() != 2 || sum.Cost.AudioSeconds != 0 {
		t.Fatalf("plan after the policy change: %+v %+v", sum, changes)
	}
	before := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	if calls := e.stats(t).calls() - before; calls != 0 {
		t.Errorf("the re-render made %d calls", calls)
	}
	b := p.readFile("build/transcripts/call-0001.txt")
	if !strings.Contains(b, "0119 8704") || strings.Contains(b, "[CARD]") || !strings.Contains(b, "[MOBILE]") {
		t.Errorf("after the policy change:\n%s", b)
	}
	p.assertNoChanges()

	// keep_unredacted turned off: the kept transcripts go, free.
	editFile(t, p.path("main.yaml"), "keep_unredacted: true", "keep_unredacted: false")
	if r := p.apply(); r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	if left := readDir(t, kept); left != "" {
		t.Errorf("kept transcripts left after keep_unredacted was turned off: %s", left)
	}
	p.assertNoChanges()
}

// readDir is the names and contents of dir's files, as one string.
func readDir(t *testing.T, dir string) string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var b strings.Builder
	for _, e := range es {
		c, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "\n" + string(c) + "\n")
	}
	return b.String()
}

// checkRedactedAudio: the redacted copy of call c has the recording's
// format and sample count, every byte outside its silenced spans is the
// recording's, and inside each span the redaction placed (found again
// from the kept transcript, as apply found it) it is below -60 dBFS.
func checkRedactedAudio(t *testing.T, p *project, c, kept string) {
	t.Helper()
	src, err := os.ReadFile(p.path("recordings/" + c + ".wav"))
	if err != nil {
		t.Fatal(err)
	}
	red, err := os.ReadFile(p.path("build/transcripts/" + c + ".redacted.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if len(red) != len(src) {
		t.Fatalf("%s: redacted audio of %d bytes, the recording %d", c, len(red), len(src))
	}
	f, _, err := audio.ReadWAVHeader(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := audio.ReadWAVHeader(bytes.NewReader(red))
	if err != nil || g != f {
		t.Fatalf("%s: redacted format %+v, the recording's %+v (%v)", c, g, f, err)
	}
	// The spans, from the kept transcript of c.
	var doc []byte
	ks, _ := os.ReadDir(kept)
	for _, k := range ks {
		b, _ := os.ReadFile(filepath.Join(kept, k.Name()))
		if bytes.Contains(b, []byte(`"`+"recordings/"+c+".wav")) || bytes.Contains(b, []byte(c+".wav")) {
			doc = b
		}
	}
	if doc == nil {
		t.Fatalf("no kept transcript of %s", c)
	}
	segs, err := transcript.ParseJSON(bytes.NewReader(doc), transcript.Labels{})
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := redact.NewPolicy([]string{"all"})
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = s.Text
	}
	spans := 0
	for i, sp := range p0.FindInSegments(texts) {
		for _, s := range sp {
			from, to, ok := transcript.SpanTimes(segs[i], s.Start, s.End)
			if !ok {
				from, to = segs[i].Start, segs[i].End
			}
			if lvl := peakDBFS(t, red, f, from, to); lvl > -60 {
				t.Errorf("%s: %s at %v-%v is %.1f dBFS in the redacted audio", c, s.Kind, from, to, lvl)
			}
			spans++
		}
	}
	if spans < 3 {
		t.Errorf("%s: %d spans redacted, want at least 3", c, spans)
	}
	if peakDBFS(t, src, f, 0, time.Hour) < -30 {
		t.Errorf("%s: the recording is silent: the check proves nothing", c)
	}
}

// peakDBFS is the peak level of the WAV b (format f) from from to to.
func peakDBFS(t *testing.T, b []byte, f audio.Format, from, to time.Duration) float64 {
	t.Helper()
	r := bytes.NewReader(b)
	if _, _, err := audio.ReadWAVHeader(r); err != nil {
		t.Fatal(err)
	}
	sr, err := audio.NewSampleReader(r, f)
	if err != nil {
		t.Fatal(err)
	}
	first := int64(from.Seconds() * float64(f.SampleRate))
	last := int64(to.Seconds() * float64(f.SampleRate))
	buf := make([]float64, 1024*f.Channels)
	peak, frame := 0.0, int64(0)
	for {
		n, err := sr.ReadSamples(buf)
		for i := 0; i < n; i++ {
			if fr := frame + int64(i/f.Channels); fr >= first && fr < last {
				peak = math.Max(peak, math.Abs(buf[i]))
			}
		}
		frame += int64(n / f.Channels)
		if err == io.EOF || n == 0 || frame >= last {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if peak == 0 {
		return math.Inf(-1)
	}
	return 20 * math.Log10(peak)
}

// remoteEntries counts the entries a directory remote holds.
func remoteEntries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.Contains(p, "/entries/") && strings.HasSuffix(p, ".json") {
			n++
		}
		return nil
	})
	return n
}
