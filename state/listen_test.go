package state

import (
	"fmt"
	"strings"
	"testing"
)

// listenRecord is a failing check with every zero value a snapshot must
// keep (a CER of 0, pass false, a span at word 0 starting at 0 s).
func listenRecord() *Listen {
	return &Listen{Fingerprint: strings.Repeat("c", 64), API: "rest", LanguageCode: "hi-IN", Seconds: 3.5,
		Heard: "नमस्ते दुनिया", Pass: false, CER: 0, WER: 0.5, LongestRun: 3, MissingTail: 0,
		Span: &ListenSpan{From: 0, To: 3, Sent: "a b c", Heard: "x", Start: 0}, Failures: []string{"longest_run 3 > 2 words"},
		Judged: strings.Repeat("d", 64), Takes: 3}
}

// A listening record on an output and on chunks crosses the state file
// and its snapshot unchanged, zero values included, and its check
// fingerprints are references the cache must keep.
func TestListenRecordSnapshotAndReferences(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	f := New()
	for i := range snapshotMinResources + 10 {
		r := sampleResource(fmt.Sprintf("text %d", i))
		r.Outputs[0].Listen = listenRecord()
		r.Edit().Chunks = []ChunkRecord{{Fingerprint: "c1", Characters: 10, SHA256: "aa", Size: 3, Start: 0, End: 12.5,
			Lead: 0, Tail: 0.4, Loudness: r.Outputs[0].Loudness, Listen: listenRecord()}}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	snapshotMatchesFile(t, b, "no snapshot kept")
	refs := map[string]bool{}
	f.Fingerprints(func(fp string) { refs[fp] = true })
	if !refs[strings.Repeat("c", 64)] {
		t.Fatal("a check's fingerprint is not among the state's references: cache gc would remove its transcript")
	}
}

// A listening record that no honest check writes is refused, naming the
// field.
func TestListenRecordRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(l *Listen)
		want string
	}{
		"cer over 1":      {func(l *Listen) { l.CER = 1.5 }, "outputs[0].listen.cer"},
		"heard too long":  {func(l *Listen) { l.Heard = strings.Repeat("a", MaxHeard+1) }, "outputs[0].listen.heard"},
		"heard not utf-8": {func(l *Listen) { l.Heard = "\xff" }, "not UTF-8"},
		"control in api":  {func(l *Listen) { l.API = "rest\x1b[2J" }, "outputs[0].listen.api"},
		"negative run":    {func(l *Listen) { l.LongestRun = -1 }, "longest_run"},
		"span backwards":  {func(l *Listen) { l.Span.To = -1 }, "span"},
		"seconds NaN":     {func(l *Listen) { l.Seconds = -1 }, "outputs[0].listen.seconds"},
	} {
		r := sampleResource("x")
		r.Outputs[0].Listen = listenRecord()
		tc.edit(r.Outputs[0].Listen)
		if err := r.CheckReported(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", name, err, tc.want)
		}
	}
	r := sampleResource("x")
	r.Edit().Chunks = []ChunkRecord{{Start: 5, End: 2}}
	if err := r.CheckReported(); err == nil || !strings.Contains(err.Error(), "chunks[0].end_seconds") {
		t.Errorf("chunk ending before it starts: got %v", err)
	}
	r.Edit().Chunks = []ChunkRecord{{End: 2, Listen: &Listen{CER: -0.1}}}
	if err := r.CheckReported(); err == nil || !strings.Contains(err.Error(), "chunks[0].listen.cer") {
		t.Errorf("chunk check: got %v", err)
	}
}
