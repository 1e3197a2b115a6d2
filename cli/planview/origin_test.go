package planview

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// A plan that replaces or removes an output that was imported or put
// back by use says so, in the table and in the Markdown summary.
func TestPlanSaysWhereReplacedOutputsCameFrom(t *testing.T) {
	take := strings.Repeat("ab", 32)
	imported := synthesis(`synthesis.menu["main"]`, "Main menu")
	imported.Type, imported.Reasons = planner.Replace, []string{"text changed"}
	imported.Prior = &state.Resource{Kind: "synthesis", Origin: state.OriginImported}
	used := synthesis("synthesis.help", "Help")
	used.Type, used.Reasons = planner.Delete, []string{"not in the manifest"}
	used.Prior = (&state.Resource{Kind: "synthesis", Origin: state.OriginTake}).WithDetails(state.Details{Take: take})
	made := synthesis("synthesis.other", "Other")
	made.Type, made.Reasons, made.Prior = planner.Replace, []string{"text changed"}, &state.Resource{Kind: "synthesis"}
	p := &planner.Plan{Actions: []*planner.Action{imported, used, made}}
	var b strings.Builder
	if err := Markdown(&b, p, nil, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"text changed; replaces an imported output", "not in the manifest; removes take abababababab put back by use"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "imported") != 1 || strings.Count(out, "put back") != 1 {
		t.Errorf("an output the service made is said to come from elsewhere:\n%s", out)
	}
}
