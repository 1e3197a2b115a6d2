package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string

	pageTemplate = template.Must(template.New("page").Parse(pageHTML))
)

// PageName is the report's page in its directory.
const PageName = "index.html"

// view is what page.html is executed with. Every string in it is escaped
// by html/template; Data is JSON whose <, > and & are escaped by
// encoding/json, so no text in it can close the script element.
type view struct {
	Title, What, Made, Against string
	Resources                  string
	Counts                     []count
	Characters, AudioSeconds   string
	CostVerb, CostLine         string
	Clipping                   int
	// Failing counts the rows with a failing listening check or seam.
	Failing int
	Omitted int
	// Approved, Lost and Unapproved count the made rows by sign-off:
	// approval holds, lost (or ends with the plan), none.
	Approved, Lost, Unapproved int
	Max                        string
	Compared                   bool
	CSS                        template.CSS
	JS                         template.JS
	Data                       template.JS
}

type count struct {
	Action, Label string
	N             string
}

// data is the JSON block the page's script reads.
type data struct {
	Items []item `json:"items"`
	// Limits are the listening limits the rows' checks were judged at,
	// each once (checkView.Limits indexes them; the first is null).
	Limits []*limitsView `json:"limits"`
}

// writePage writes index.html atomically.
func writePage(in Input, p *page) error {
	v := view{
		Title: p.Title, Made: p.Made, Against: p.Against, Compared: p.Compared,
		Resources:    numfmt.Thousands(int64(len(p.Items))),
		Characters:   numfmt.Thousands(p.Cost.Characters),
		AudioSeconds: planner.Duration(p.Cost.AudioSeconds),
		CostLine:     p.Cost.Line(),
		Omitted:      p.Omitted,
		Max:          numfmt.Thousands(MaxResources),
		CSS:          template.CSS(pageCSS),
		JS:           template.JS(pageJS),
	}
	switch {
	case p.Mode == "plan":
		v.What, v.CostVerb = "Saved plan", "billable"
	case p.Compared:
		v.What, v.CostVerb = "The last apply", "billed"
	default:
		v.What, v.CostVerb = "Every recorded resource", "billed"
		v.CostLine = "Billed over the life of the state: " + v.Characters + " characters, " + v.AudioSeconds + " of audio."
	}
	keys := make([]string, 0, len(p.Counts))
	for k := range p.Counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return order(a) - order(b) })
	for _, k := range keys {
		label := k
		if k == "" {
			label = "unknown"
		}
		v.Counts = append(v.Counts, count{Action: k, Label: label, N: numfmt.Thousands(int64(p.Counts[k]))})
	}
	v.Clipping, v.Failing = flagged(p.Items)
	v.Approved, v.Lost, v.Unapproved = signedOff(p.Items)
	b, err := json.Marshal(data{Items: p.Items, Limits: p.listening.limits})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	v.Data = template.JS(b)
	return owned.WriteFile(filepath.Join(in.Out, PageName), 0o644, func(w io.Writer) error {
		return pageTemplate.Execute(w, v)
	})
}

// flagged counts the rows whose audio clips and those failing a
// listening check or seam.
func flagged(items []item) (clipping, failing int) {
	for _, it := range items {
		if it.Audio != nil && it.Audio.Clipped > 0 {
			clipping++
		}
		if it.Fails > 0 {
			failing++
		}
	}
	return clipping, failing
}

// signedOff counts the rows of made resources whose approval holds,
// those whose approval was lost (or ends with the plan) and those never
// approved.
func signedOff(items []item) (approved, lost, unapproved int) {
	for _, it := range items {
		switch {
		case it.Approval != nil && it.Approval.State == ApprovalHolds:
			approved++
		case it.Approval != nil:
			lost++
		case it.Made:
			unapproved++
		}
	}
	return approved, lost, unapproved
}

// order sorts actions as plans group them, statuses after.
func order(a string) int {
	if i := slices.Index(planner.ActionOrder, planner.ActionType(a)); i >= 0 {
		return i
	}
	if a == string(planner.NoOp) {
		return len(planner.ActionOrder)
	}
	return len(planner.ActionOrder) + 1
}
