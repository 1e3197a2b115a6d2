package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/voxform/voxform/state"
)

// selectAddresses applies -target, -replace and -destroy: which desired
// resources are planned and which recorded ones are deleted.
func (c *computer) selectAddresses() error {
	opts := c.in.Options
	c.replace = map[string]bool{}
	for _, r := range opts.Replace {
		n := 0
		for _, d := range c.in.Desired {
			if state.MatchAddress(r, d.Address) {
				c.replace[d.Address] = true
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("-replace %s: no resource of the manifest has this address", r)
		}
	}
	if opts.Destroy {
		recorded := c.recorded()
		for _, t := range opts.Targets {
			if !matchesAny(t, recorded) {
				return fmt.Errorf("-target %s: no recorded resource has this address", t)
			}
		}
		for _, addr := range recorded {
			if len(opts.Targets) == 0 || matchTargets(opts.Targets, addr) {
				c.selDeleted = append(c.selDeleted, addr)
			}
		}
		return nil
	}
	sel := map[string]bool{}
	for _, t := range opts.Targets {
		n := 0
		for _, d := range c.in.Desired {
			if state.MatchAddress(t, d.Address) {
				c.include(d.Address, sel)
				n++
			}
		}
		if n == 0 && !matchesAny(t, c.recorded()) {
			return fmt.Errorf("-target %s: no resource in the manifest or the state has this address", t)
		}
	}
	if len(opts.Targets) == 0 {
		c.selDesired = make([]*Desired, 0, len(c.in.Desired))
	}
	for _, d := range c.in.Desired {
		if len(opts.Targets) == 0 || sel[d.Address] {
			c.selDesired = append(c.selDesired, d)
		}
	}
	sortByAddress(c.selDesired)
	if len(opts.Targets) == 0 && c.everyRecordedDesired() {
		return nil // nothing recorded is deleted (the plan of 100,000 unchanged)
	}
	desired := c.byAddress()
	for _, addr := range c.recorded() {
		if _, ok := desired[addr]; ok {
			continue
		}
		if len(opts.Targets) == 0 || matchTargets(opts.Targets, addr) {
			c.selDeleted = append(c.selDeleted, addr)
		}
	}
	return nil
}

// recorded are the addresses the state records, unsorted: plan sorts
// what it deletes.
func (c *computer) recorded() []string {
	recorded := make([]string, 0, len(c.st.Resources))
	for a := range c.st.Resources {
		recorded = append(recorded, a)
	}
	return recorded
}

// everyRecordedDesired says, of a plan without -target, whether every
// address the state records is desired: as many distinct desired
// addresses have a record as there are records (the selection is every
// desired resource, sorted).
func (c *computer) everyRecordedDesired() bool {
	n := 0
	for i, d := range c.selDesired {
		if _, ok := c.prior(d); ok && (i == 0 || c.selDesired[i-1].Address != d.Address) {
			n++
		}
	}
	return n == len(c.st.Resources)
}

// include selects addr and, as Terraform does, everything it depends on.
func (c *computer) include(addr string, sel map[string]bool) {
	if sel[addr] {
		return
	}
	sel[addr] = true
	if d, ok := c.byAddress()[addr]; ok {
		for _, dep := range d.Details().DependsOn {
			c.include(dep, sel)
		}
	}
}

func matchesAny(pattern string, addrs []string) bool {
	for _, a := range addrs {
		if state.MatchAddress(pattern, a) {
			return true
		}
	}
	return false
}

func matchTargets(targets []string, addr string) bool {
	for _, t := range targets {
		if state.MatchAddress(t, addr) {
			return true
		}
	}
	return false
}

// sortByAddress sorts ds by address, unless they are already (a for_each's
// rows most often come sorted, and Build returns them so).
func sortByAddress(ds []*Desired) {
	byAddress := func(a, b *Desired) int { return strings.Compare(a.Address, b.Address) }
	if !slices.IsSortedFunc(ds, byAddress) {
		slices.SortFunc(ds, byAddress)
	}
}
