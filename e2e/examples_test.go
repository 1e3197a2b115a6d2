package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestExamples applies every example of examples/manifests against the
// emulator (SPEC section 10): it validates without a warning; the plan
// counts what the example declares and costs what the service then bills;
// the outputs are valid files of their kind; afterwards the plan is empty,
// a second apply calls nothing at all (SPEC section 5 and target P7), and
// verify finds every output intact.
// Transcripts are downloaded from their presigned URLs without the key.
// Then each example goes through the edits of its users (editWalk): outputs
// renamed, damaged and destroyed (the IVR example in TestIVREdits).
//
// conformance: BJ-060, BJ-067, BJ-085, STT-028, VC-004, VC-011
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
		walk    *editWalk
		// live: the example names voices only the live service has.
		live bool
	}{
		{name: "ivr-prompts", adds: 9, outputs: 18}, // each prompt and its telephony WAV
		// The welcome from the studio's recording (recorded:), delivered as
		// the others are.
		{name: "ivr-prompts-recorded", adds: 9, outputs: 18, example: "ivr-prompts",
			edit: [2]string{"    # recorded: studio/welcome.wav", "    recorded: studio/welcome.wav"}},
		{name: "live-voices", adds: 3, outputs: 4, live: true},
		{name: "hindi-narration", adds: 2, outputs: 2, walk: &editWalk{
			rename: [][2]string{{"build/chapter1/opening.wav", "build/chapter1/intro.wav"}}, moves: 1,
			paid: []string{"build/chapter1/intro.wav", "build/chapter1/market.wav"},
		}},
		{name: "cloned-voice", adds: 3, outputs: 3, walk: &editWalk{
			rename: [][2]string{
				{"build/voices/founder.json", "build/voices/founder-v1.json"},
				{"build/founder/greeting.wav", "build/founder/welcome.wav"},
			}, moves: 2,
			// A repaired embedding is the same embedding: the syntheses in
			// its voice stay.
			paid:            []string{"build/founder/welcome.wav", "build/voices/founder-v1.json"},
			billedWithCache: 1,
		}},
		{name: "call-transcripts", adds: 3, outputs: 12, walk: &editWalk{
			rename: [][2]string{{"output_dir: build/transcripts", "output_dir: build/calls"}}, moves: 3,
			free: []string{"build/calls/2026/11/call-0001.txt", "build/calls/2026/11/call-0001.srt", "build/calls/2026/11/call-0002.vtt"},
			paid: []string{"build/calls/2026/call-0003.json", "build/calls/2026/11/call-0002.json"},
		}},
		{name: "short-clips", adds: 3, outputs: 7, walk: &editWalk{
			rename: [][2]string{{"output_dir: build/rest", "output_dir: build/rest-api"}}, moves: 1,
			free: []string{"build/realtime/balance.vtt", "build/realtime/tamil-help.srt"},
			paid: []string{"build/rest-api/transfer.json", "build/realtime/balance.json"},
		}},
		{name: "url-batch", adds: 2, outputs: 6, walk: &editWalk{
			rename: [][2]string{{"output_dir: build/transcripts", "output_dir: build/archive"}}, moves: 2,
			free: []string{"build/archive/call-0001.txt", "build/archive/call-0002.vtt"},
			paid: []string{"build/archive/call-0002.json"},
		}},
		// Batch transcripts without json: the downloaded JSON is a scratch
		// file that must leave no trace, and a lost text output is only
		// made again by transcribing again.
		{name: "call-transcripts-no-json", adds: 3, outputs: 6, example: "call-transcripts",
			edit: [2]string{"formats: [json, txt, srt, vtt]", "formats: [txt, srt]"},
			walk: &editWalk{paid: []string{"build/transcripts/2026/call-0003.txt", "build/transcripts/2026/11/call-0001.srt"}}},
	}
	ffprobe(t)
	for _, tc := range tests {
		if tc.live && profile != "live" {
			t.Logf("%s is an example for the live service: run with VOXFORM_E2E_PROFILE=live", tc.name)
			continue
		}
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
			// A showcase validates cleanly: no warning to explain away.
			if r := p.mustRun(append([]string{"validate"}, p.vars...)...); strings.Contains(r.stdout+r.stderr, "warning") {
				t.Fatalf("the example validates with warnings:\n%s", r)
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
			if tc.walk != nil {
				tc.walk.walk(t, e, p, tc.outputs)
			}
		})
	}
}
