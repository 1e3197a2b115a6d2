package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestExamples applies every example of examples/manifests against the
// emulator (SPEC section 10): the plan counts what the example declares and
// costs what the service then bills; the outputs are valid files of their
// kind; afterwards the plan is empty, a second apply calls nothing at all
// (SPEC section 5 and target P7), and verify finds every output intact.
// Transcripts are downloaded from their presigned URLs without the key.
//
// conformance: BJ-085
func TestExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		adds    int // resources the first plan creates
		outputs int // files the state records afterwards
		// example is the directory when name is a variant of it, made by
		// replacing edit[0] with edit[1] in its main.yaml.
		example string
		edit    [2]string
	}{
		{name: "ivr-prompts", adds: 9, outputs: 9},
		{name: "hindi-narration", adds: 2, outputs: 2},
		{name: "cloned-voice", adds: 3, outputs: 3},
		{name: "call-transcripts", adds: 3, outputs: 12},
		{name: "short-clips", adds: 3, outputs: 7},
		{name: "url-batch", adds: 2, outputs: 6},
		// Batch transcripts without json: the downloaded JSON is a scratch
		// file that must leave no trace.
		{name: "call-transcripts-no-json", adds: 3, outputs: 6, example: "call-transcripts",
			edit: [2]string{"formats: [json, txt, srt, vtt]", "formats: [txt, srt]"}},
	}
	ffprobe(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, emulator.Options{Seed: 7})
			dir := tc.name
			if tc.example != "" {
				dir = tc.example
			}
			p := newProject(t, dir, e)
			if tc.edit[0] != "" {
				editFile(t, p.path("main.yaml"), tc.edit[0], tc.edit[1])
			}
			if tc.name == "url-batch" {
				srv := httptest.NewServer(http.FileServer(http.Dir(p.path("served"))))
				t.Cleanup(srv.Close)
				p.vars = []string{"-var", "recordings=" + srv.URL}
			}
			changes, sum := p.plan()
			if sum.Add != tc.adds || sum.changes() != tc.adds || len(changes) != tc.adds {
				t.Fatalf("first plan: %+v with %d changes, want %d to add and nothing else", sum, len(changes), tc.adds)
			}
			if r := p.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			after := e.stats(t)
			if after.BilledCharacters != sum.Cost.Characters {
				t.Errorf("service billed %d characters, the plan said %d", after.BilledCharacters, sum.Cost.Characters)
			}
			if after.PresignedWithKey != 0 {
				t.Errorf("%d presigned downloads carried the API key", after.PresignedWithKey)
			}
			checkOutputs(t, p, tc.outputs)
			assertNoTemps(t, p)
			p.assertNoChanges()
			if r := p.apply(); r.code != 0 {
				t.Fatalf("second apply: %s", r)
			}
			if again := e.stats(t); again.calls() != after.calls() {
				t.Fatalf("second apply with nothing changed made %d API calls, want 0:\nbefore %v\nafter  %v",
					again.calls()-after.calls(), after.Requests, again.Requests)
			}
			p.verify()
		})
	}
}
