package planview

import (
	"fmt"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/planner"
)

// listenLine is the line under the table that sums up a plan's listening
// checks, "" when no action has any: "Listening checks: 230 to make
// (0h41m00s of audio, estimated), 12 recorded; at worst, with
// regenerate: 183,702 characters and 2h03m00s of audio."
func listenLine(p *planner.Plan) string {
	var make, recorded, restored int
	var secs float64
	estimated, any := false, false
	for _, a := range p.Actions {
		if w := a.Listen; w != nil {
			any = true
			make, recorded, restored, secs = make+w.Make, recorded+w.Recorded, restored+w.Restored, secs+w.AudioSeconds
			estimated = estimated || w.Estimated
		}
	}
	if !any {
		return ""
	}
	audio := planner.Duration(secs) + " of audio"
	if estimated {
		audio += ", estimated"
	}
	line := fmt.Sprintf("Listening checks: %s to make (%s)", numfmt.Thousands(int64(make)), audio)
	if recorded > 0 {
		line += fmt.Sprintf(", %s recorded", numfmt.Thousands(int64(recorded)))
	}
	if restored > 0 {
		line += fmt.Sprintf(", %s restored", numfmt.Thousands(int64(restored)))
	}
	if n := p.Regenerate(); n > 0 && p.Worst != p.Cost {
		line += fmt.Sprintf("; at worst, with regenerate: %d, %s characters and %s of audio", n,
			numfmt.Thousands(p.Worst.Characters), planner.Duration(p.Worst.AudioSeconds))
	}
	return line + "."
}

// listenFailing lists the recorded listening checks that fail at the
// limits declared now, each "address: what: why" (the actions' first, in
// the order of the table, then those of resources left as they are), and
// counts the resources they belong to.
func listenFailing(p *planner.Plan) (lines []string, outputs int) {
	for _, a := range grouped(p) {
		if a.Listen == nil || len(a.Listen.Failing) == 0 {
			continue
		}
		outputs++
		for _, f := range a.Listen.Failing {
			lines = append(lines, a.Address+": "+f)
		}
	}
	last := ""
	for _, f := range p.ListenFailing {
		if addr := addressOf(f); addr != last {
			outputs, last = outputs+1, addr
		}
		lines = append(lines, f)
	}
	return lines, outputs
}

// addressOf is the address a line of Plan.ListenFailing begins with: up
// to the first ": " outside quotes (a for_each key may hold one).
func addressOf(line string) string {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && quoted:
			i++
		case line[i] == '"':
			quoted = !quoted
		case !quoted && line[i] == ':' && i+1 < len(line) && line[i+1] == ' ':
			return line[:i]
		}
	}
	return line
}

// failingHead is the line above the failing checks: "2 outputs fail
// their recorded listening check at the limits declared now:".
func failingHead(outputs int) string {
	verb := "fail their recorded listening checks"
	if outputs == 1 {
		verb = "fails its recorded listening check"
	}
	return fmt.Sprintf("%s output%s %s at the limits declared now:", numfmt.Thousands(int64(outputs)), plural(outputs), verb)
}

// MaxFailingLines is how many failing checks the plan lists before
// "… and K more".
const MaxFailingLines = 20
