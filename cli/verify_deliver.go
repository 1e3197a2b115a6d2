package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/internal/junit"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// checkDeliveries is verify -deliver: every delivered output measured and
// judged by its profile's rules as the manifest declares them now.
func (res *verifyResult) checkDeliveries(ctx context.Context, env *Env, o *verifyOptions, ws *workspace.Workspace, m *manifest.Manifest, st *state.File, f *findings) error {
	enc, _ := findEncoder() // without one, AAC files are reported unmeasured
	checks, err := ws.CheckDeliveries(ctx, m, st, enc)
	if err != nil {
		return err
	}
	res.deliver = checks
	failed := 0
	for i := range checks {
		c := &checks[i]
		if !c.Pass {
			failed++
		}
		if o.json {
			if err := writeJSONLine(env.Stdout, c); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: %s (%s): %s\n", untrusted.Escape(c.Address), untrusted.Escape(c.Path), c.Profile, deliveryVerdict(c))
		for _, r := range c.Results {
			mark := "ok  "
			if !r.Pass {
				mark = "FAIL"
			}
			fmt.Fprintf(env.Stdout, "  %s %-12s %-22s target %s\n", mark, r.Rule, r.Measured, r.Target)
		}
	}
	if !o.json {
		fmt.Fprintf(env.Stdout, "Delivered outputs: %d checked, %d fail their profile's rules or are not delivered.\n", len(checks), failed)
	}
	if failed > 0 {
		f.add(fmt.Sprintf("%d delivered output(s) fail their profile's rules or are not delivered", failed),
			"'voxform apply' delivers what is missing; a file that fails its rules names each one above")
	}
	return nil
}

// deliveryVerdict is "pass", "not delivered: ..." or the failed rules.
func deliveryVerdict(c *workspace.DeliveryCheck) string {
	switch {
	case c.Unmade != "":
		return untrusted.Lines(c.Unmade)
	case c.Pass:
		return "pass"
	}
	return "fails " + failedRules(c.Failed())
}

// failedRules names each failed rule with its measure and target:
// "peak -0.4 dBFS (at most -1 dBFS); head 0.100 s (0.5 to 1 s)".
func failedRules(rs []deliver.Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %s (%s)", r.Rule, r.Measured, r.Target)
	}
	return strings.Join(parts, "; ")
}

// deliverySuite is one JUnit case per delivered output: a failure names
// every rule it breaks, a pass lists the measures.
func deliverySuite(checks []workspace.DeliveryCheck) junit.Suite {
	s := junit.Suite{Name: "deliver"}
	for i := range checks {
		c := &checks[i]
		tc := junit.Case{Class: c.Address, Name: fmt.Sprintf("deliver %s %s", c.Profile, c.Path)}
		switch {
		case c.Unmade != "":
			tc.Failure = &junit.Failure{Type: "unmade", Message: c.Unmade}
		case !c.Pass:
			tc.Failure = &junit.Failure{Type: "rules", Message: failedRules(c.Failed())}
		default:
			tc.Output = failedRules(c.Results)
		}
		s.Cases = append(s.Cases, tc)
	}
	return s
}

// deliveryMarkdown adds verify's Markdown rows for the failing
// deliveries, and returns the summary sentence.
func deliveryMarkdown(checks []workspace.DeliveryCheck, rows *[][]string) string {
	failed := 0
	for i := range checks {
		if c := &checks[i]; !c.Pass {
			failed++
			*rows = append(*rows, []string{c.Address, c.Path, deliveryVerdict(c)})
		}
	}
	return fmt.Sprintf(" Delivered outputs: %d checked, %d failing.", len(checks), failed)
}
