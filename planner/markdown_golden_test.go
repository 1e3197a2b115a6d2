package planner_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// markdownCase is a plan rendered by planview.Markdown: a scenario of
// TestPlanGolden by name, or one of its own.
type markdownCase struct {
	name     string
	scenario string // a TestPlanGolden scenario, or "" for sc
	sc       scenario
	// cached lists the addresses whose desired fingerprint the output
	// cache holds, by where ("local" or a remote's URL).
	cached map[string]string
	opts   planview.MarkdownOptions
}

var markdownCases = []markdownCase{
	{name: "create", scenario: "create_all"},
	{name: "replace_text_create_delete", scenario: "for_each_edit_add_remove"},
	{name: "delete", scenario: "destroy"},
	{name: "budget_exceeded", scenario: "budget_exceeded"},
	{name: "no_changes", scenario: "no_changes"},
	{name: "restore_within_budget", sc: scenario{edit: func(p *project, st *state.File) {
		p.m.Budget = &manifest.Budget{MaxCharacters: new(int64), Pos: manifest.Pos{File: "voxform.yaml", Line: 3, Col: 3}}
		*p.m.Budget.MaxCharacters = 20 // the restores are free: only sales counts
		p.synthesis(`synthesis.menu["billing"]`).Text = "बिलिंग के लिए कृपया एक दबाएँ"
		p.synthesis(`synthesis.menu["sales"]`).Text = "बिक्री के लिए तीन"
		p.synthesis("synthesis.welcome").Text = "<excited> नमस्ते!"
	}}, cached: map[string]string{`synthesis.menu["billing"]`: "local", "synthesis.welcome": "s3://team-cache/ivr"}},
	{name: "listen_recorded", scenario: "listen_recorded"},
	{name: "listen_budget_worst_case", scenario: "listen_budget_worst_case"},
	{name: "listen_no_changes_failing", scenario: "listen_no_changes_failing"},
	{name: "truncated", sc: scenario{fresh: true, setup: func(p *project) {
		p.synthesis("synthesis.welcome").Text = "<excited> Welcome to | the *support* line. " +
			strings.Repeat("Please listen carefully, as our menu options have changed recently. ", 3)
		p.synthesis(`synthesis.menu["billing"]`).Text = "Line one\nline two\twith a tab and a very long tail that goes on past the limit of the cell"
	}}, opts: planview.MarkdownOptions{MaxRows: 7, MaxText: 60}},
	{name: "inert", sc: scenario{fresh: true, setup: func(p *project) {
		p.synthesis("synthesis.welcome").Text = "@voxform/team see #123, GH-7 and https://evil.example or www.evil.example: " +
			"![x](https://evil.example/i.png) [click](http://evil.example) <img src=x onerror=alert(1)> `code` a|b \x1b[2K"
	}}, opts: planview.MarkdownOptions{MaxText: 300}},
}

// TestPlanMarkdownGolden renders plans as the Markdown summary of
// 'voxform plan -markdown' (go test -run TestPlanMarkdownGolden -update
// rewrites the files).
func TestPlanMarkdownGolden(t *testing.T) {
	byName := map[string]scenario{}
	for _, sc := range scenarios {
		byName[sc.name] = sc
	}
	for _, mc := range markdownCases {
		t.Run(mc.name, func(t *testing.T) {
			sc := mc.sc
			if mc.scenario != "" {
				var ok bool
				if sc, ok = byName[mc.scenario]; !ok {
					t.Fatalf("no scenario %s", mc.scenario)
				}
			}
			p, st := sc.prepare(t)
			in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Options: sc.opts, Budget: p.m.Budget}
			if mc.cached != nil {
				in.Options.Cache = planner.CacheOn
				fps := map[string]string{}
				for _, d := range in.Desired {
					if where, ok := mc.cached[d.Address]; ok {
						fps[d.Fingerprint] = where
					}
				}
				in.Cached = func(asked []string) (map[string]string, error) { return fps, nil }
			}
			plan, err := planner.Compute(in)
			if plan == nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := planview.Markdown(&out, plan, p.m.Budget, mc.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, "markdown_"+mc.name, out.Bytes())
		})
	}
}
