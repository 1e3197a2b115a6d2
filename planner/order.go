package planner

import (
	"container/heap"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
)

// addPathDependencies sets each action's DependsOn: the actions of its
// declared dependencies (an embedding before its syntheses), and, for an
// action that writes a path, the move that must first take the old file
// away from that path.
func (c *computer) addPathDependencies() error {
	inPlan := make(map[string]*Action, len(c.actions))
	for _, a := range c.actions {
		inPlan[a.Address] = a
	}
	vacates := map[string]string{} // path -> address of the move taking it away
	for _, a := range c.actions {
		for _, m := range a.Details().Moves {
			vacates[m.From] = a.Address
		}
	}
	for _, a := range c.actions {
		deps := map[string]bool{}
		if a.Desired != nil && a.Type != Delete {
			for _, dep := range a.Desired.Details().DependsOn {
				if _, ok := inPlan[dep]; ok {
					deps[dep] = true
				}
			}
			for _, p := range a.writes() {
				if who, ok := vacates[p]; ok && who != a.Address {
					deps[who] = true
				}
			}
		}
		for dep := range deps {
			a.DependsOn = append(a.DependsOn, dep)
		}
		sort.Strings(a.DependsOn)
	}
	return nil
}

// writes lists the paths an action creates or overwrites.
func (a *Action) writes() []string {
	var out []string
	switch a.Type {
	case Create, Replace, Repair, Resume:
		if a.Desired == nil {
			return nil
		}
		for _, o := range a.Desired.Outputs {
			out = append(out, o.Path)
		}
	case Move:
		for _, m := range a.Details().Moves {
			if !m.Adopt {
				out = append(out, m.To)
			}
		}
		fallthrough
	case Restore, Check, Remaster:
		// Any action on a synthesis may master its delivered outputs
		// (the executor's delivery step follows every one); a package's
		// remaster writes all its files.
		if a.Desired == nil {
			return out
		}
		pkg := a.Desired.Kind == manifest.KindPackage
		for _, o := range a.Desired.Outputs {
			if _, ok := IsDelivery(o.Format); (ok || pkg) && !slices.Contains(out, o.Path) {
				out = append(out, o.Path)
			}
		}
	}
	return out
}

// adopted reports whether p is where an output was found already moved:
// it holds the recorded content, so it is voxform's.
func (a *Action) adopted(p string) bool {
	for _, m := range a.Details().Moves {
		if m.Adopt && m.To == p {
			return true
		}
	}
	return false
}

// order sorts actions so that each comes after its DependsOn, keeping the
// given order (address order, deletes last) among independent actions.
func order(actions []*Action) ([]*Action, error) {
	idx := make(map[string]int, len(actions))
	for i, a := range actions {
		idx[a.Address] = i
	}
	indeg := make([]int, len(actions))
	dependents := make([][]int, len(actions))
	for i, a := range actions {
		for _, d := range a.DependsOn {
			j, ok := idx[d]
			if !ok {
				continue
			}
			indeg[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	ready := &intHeap{}
	for i := range actions {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]*Action, 0, len(actions))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, actions[i])
		for _, k := range dependents[i] {
			indeg[k]--
			if indeg[k] == 0 {
				heap.Push(ready, k)
			}
		}
	}
	if len(out) != len(actions) {
		var stuck []string
		for i, a := range actions {
			if indeg[i] > 0 {
				stuck = append(stuck, a.Address)
			}
		}
		return nil, fmt.Errorf("plan: outputs are exchanged between %s: apply the renames in two steps (rename one output to a new path first)", strings.Join(stuck, ", "))
	}
	return out, nil
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
