package cli

import (
	"fmt"
	"io"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/internal/junit"
	"github.com/voxform/voxform/workspace"
)

// verifyResult is what verify found: the files hashed and those that
// differ, and the loudness report when -loudness asked for it.
type verifyResult struct {
	resources int
	found     []workspace.Drift
	hashed    []workspace.Hashed
	loud      *workspace.LoudnessReport
	listen    *workspace.ListenReport
	deliver   []workspace.DeliveryCheck
	// approvals, with -require-approved: one per declared resource.
	approvals []approvalCheck
}

// drifted is the set of paths of outputs (not sources) missing or
// modified.
func (res *verifyResult) drifted() map[string]bool {
	m := map[string]bool{}
	for _, d := range res.found {
		if d.Problem != workspace.SourceChanged {
			m[d.Path] = true
		}
	}
	return m
}

// outputsDrifted counts the outputs missing or modified.
func (res *verifyResult) outputsDrifted() int {
	n := 0
	for _, d := range res.found {
		if d.Problem != workspace.SourceChanged {
			n++
		}
	}
	return n
}

// junit is the result as a JUnit report: a "hash" suite with one case per
// file hashed, and with -loudness a "loudness" suite with one case per
// audio output. A transcription source that changed is not a failure (as
// for verify's exit status): its case says so in its output.
func (res *verifyResult) junit() *junit.Report {
	byFile := map[[2]string]*workspace.Drift{}
	for i := range res.found {
		d := &res.found[i]
		byFile[[2]string{d.Address, d.Path}] = d
	}
	hash := junit.Suite{Name: "hash"}
	for _, h := range res.hashed {
		c := junit.Case{Class: h.Address, Name: "hash " + h.Path}
		if h.Source {
			c.Name = "source " + h.Path
		}
		if d := byFile[[2]string{h.Address, h.Path}]; d != nil {
			msg := fmt.Sprintf("%s: recorded sha256 %s, found %s", d.Problem, d.Recorded, d.Found)
			if d.Found == "" {
				msg = fmt.Sprintf("%s: recorded sha256 %s, found no file", d.Problem, d.Recorded)
			}
			if h.Source {
				c.Output = msg + " (the transcript was made from the recorded source)"
			} else {
				c.Failure = &junit.Failure{Type: d.Problem, Message: msg}
			}
		}
		hash.Cases = append(hash.Cases, c)
	}
	r := &junit.Report{Name: "voxform verify", Suites: []junit.Suite{hash}}
	if res.loud != nil {
		r.Suites = append(r.Suites, loudnessSuite(res.loud))
	}
	if res.listen != nil {
		r.Suites = append(r.Suites, listenSuite(res.listen), seamsSuite(res.listen))
	}
	if res.deliver != nil {
		r.Suites = append(r.Suites, deliverySuite(res.deliver))
	}
	if res.approvals != nil {
		r.Suites = append(r.Suites, approvalSuite(res.approvals))
	}
	return r
}

// loudnessSuite is one JUnit case per audio output of rep: a failure
// names the measured figures against the limits, a pass shows them.
func loudnessSuite(rep *workspace.LoudnessReport) junit.Suite {
	s := junit.Suite{Name: "loudness"}
	for i := range rep.Outputs {
		o := &rep.Outputs[i]
		c := junit.Case{Class: o.Address, Name: "loudness " + o.Path}
		switch {
		case o.Unmeasured != "":
			c.Skipped = "loudness not measured: " + o.Unmeasured
		case o.Flagged():
			c.Failure = &junit.Failure{Type: "loudness", Message: loudnessProblems(o, rep.Limits)}
		default:
			c.Output = loudnessFigures(o, rep.Limits)
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// loudnessFigures states an output's figures beside the limits:
// "-23.1 LUFS, 0.1 LU from the median -23.0 LUFS (limit 3 LU); true peak -2.0 dBTP (limit -1 dBTP)".
func loudnessFigures(o *workspace.LoudnessCheck, lim workspace.LoudnessLimits) string {
	s := "silent"
	if o.IntegratedLUFS != nil {
		s = fmt.Sprintf("%.1f LUFS", *o.IntegratedLUFS)
		if o.DeviationLU != nil && o.MedianLUFS != nil {
			s += fmt.Sprintf(", %.1f LU from the median %.1f LUFS (limit %g LU)", *o.DeviationLU, *o.MedianLUFS, lim.MaxDeviation)
		}
	}
	if o.TruePeakDBTP != nil {
		s += fmt.Sprintf("; true peak %.1f dBTP (limit %g dBTP)", *o.TruePeakDBTP, lim.MaxTruePeak)
	}
	return s
}

// markdown writes the result as a job summary: the counts, then one row
// per finding.
func (res *verifyResult) markdown(w io.Writer) error {
	line := fmt.Sprintf("Verified %d recorded file(s) of %d resource(s): %d drifted.", len(res.hashed), res.resources, res.outputsDrifted())
	var rows [][]string
	for _, d := range res.found {
		rows = append(rows, []string{d.Address, d.Path, d.Problem})
	}
	if res.loud != nil {
		flagged := 0
		for i := range res.loud.Outputs {
			if o := &res.loud.Outputs[i]; o.Flagged() {
				flagged++
				rows = append(rows, []string{o.Address, o.Path, loudnessProblems(o, res.loud.Limits)})
			}
		}
		line += fmt.Sprintf(" Loudness of %d audio output(s): %d outside the limits.", len(res.loud.Outputs), flagged)
	}
	if rep := res.listen; rep != nil {
		checks, seams := rep.Failed()
		for i := range rep.Checks {
			if c := &rep.Checks[i]; !c.Pass {
				rows = append(rows, []string{c.Address, c.Path, c.Item() + ": " + verdict(c) + ": " + checkWhy(c)})
			}
		}
		for i := range rep.Seams {
			if s := &rep.Seams[i]; !s.Seam.Pass {
				rows = append(rows, []string{s.Address, s.Path, s.Item() + ": " + seamFigures(s)})
			}
		}
		line += fmt.Sprintf(" Listening checks: %d declared, %d fail (%d not checked); seams: %d, %d outside their limits.",
			len(rep.Checks), checks, len(rep.Unchecked()), len(rep.Seams), seams)
	}
	if res.deliver != nil {
		line += deliveryMarkdown(res.deliver, &rows)
	}
	if res.approvals != nil {
		line += approvalMarkdown(res.approvals, &rows)
	}
	return planview.Findings(w, "voxform verify", line, []string{"address", "file", "finding"}, rows, planview.JobSummaryBytes, "'voxform verify'")
}

// listenSuite is one JUnit case per declared listening check: a failure
// of type "listen" names each failing measure with its value and limit
// and the diverging span, a check not recorded for the output's audio is
// a failure of type "unchecked" (a declared check never passes unmade),
// a pass shows its figures.
func listenSuite(rep *workspace.ListenReport) junit.Suite {
	s := junit.Suite{Name: "listen"}
	for i := range rep.Checks {
		c := &rep.Checks[i]
		jc := junit.Case{Class: c.Address, Name: c.Item()}
		switch {
		case c.Unchecked != "":
			jc.Failure = &junit.Failure{Type: "unchecked", Message: checkWhy(c) + "; " + makeHint}
		case !c.Pass:
			jc.Failure = &junit.Failure{Type: "listen", Message: checkWhy(c)}
		default:
			jc.Output = listenFigures(c)
		}
		s.Cases = append(s.Cases, jc)
	}
	return s
}

// seamsSuite is one JUnit case per chunk boundary of the joined outputs:
// a failure of type "seam" states the step and the gap against their
// limits, a pass shows them.
func seamsSuite(rep *workspace.ListenReport) junit.Suite {
	s := junit.Suite{Name: "seams"}
	for i := range rep.Seams {
		sc := &rep.Seams[i]
		jc := junit.Case{Class: sc.Address, Name: sc.Item()}
		if sc.Seam.Pass {
			jc.Output = seamFigures(sc)
		} else {
			jc.Failure = &junit.Failure{Type: "seam", Message: seamFigures(sc)}
		}
		s.Cases = append(s.Cases, jc)
	}
	return s
}
