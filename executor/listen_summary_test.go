package executor

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/state"
)

// TestListenFailureAtInJoinedOutput: apply's failure line of a chunk
// places the diverging run in the joined output (the chunk's start plus
// the run's start in the chunk), as verify and the report do, and leaves
// the record as it was.
func TestListenFailureAtInJoinedOutput(t *testing.T) {
	l := &state.Listen{Failures: []string{"longest_run: 4 words over 2"}, LongestRun: 4,
		Span: &state.ListenSpan{From: 3, To: 7, Sent: "a b c d", Heard: "x", Start: 3.1}}
	st := &state.File{Resources: map[string]*state.Resource{"synthesis.chapter": (&state.Resource{
		Status: state.StatusComplete,
	}).WithDetails(state.Details{Chunks: []state.ChunkRecord{{Start: 0, End: 143.2}, {Start: 143.2, End: 274.9, Listen: l}}}),
	}}
	got, n := listenFailures(st, nil)
	if n != 1 {
		t.Fatalf("failures %+v", got)
	}
	line := got[0].String()
	if !strings.Contains(line, "chunk 2 of 2 (143.2-274.9 s)") || !strings.Contains(line, "(at 146.3 s)") {
		t.Errorf("failure line %q; want the run at 146.3 s in the joined output", line)
	}
	if l.Span.Start != 3.1 {
		t.Errorf("the record's span moved to %.1f s", l.Span.Start)
	}
}
