package executor

import (
	"errors"
	"fmt"
	"sync"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/planner"
)

// ErrUnpriced is wrapped by the error of an action that would bill more
// than its plan priced: the work is not done, nothing is called.
var ErrUnpriced = errors.New("work the plan did not price")

// allowance is what one action may still bill: the plan's figure for it
// (a.Cost, or with listening checks a.Listen.Worst, which adds every
// take regenerate allows). Each take and each check spends from it
// before it is sent, so an apply never bills more than its plan showed:
// what the plan took as free (a chunk in the cache, say) and is gone
// since, or audio longer than the plan priced its check at, is refused
// with ErrUnpriced, and planning again shows what it costs.
type allowance struct {
	mu      sync.Mutex
	planned planner.Cost
	spent   planner.Cost
}

// newAllowance is the allowance of the action a.
func newAllowance(a *planner.Action) *allowance {
	if a.Listen != nil {
		return &allowance{planned: a.Listen.Worst}
	}
	return &allowance{planned: a.Cost}
}

// chars spends n billed characters of synthesis, or refuses them; what
// explains them in the refusal.
func (al *allowance) chars(n int64, what string) error {
	al.mu.Lock()
	defer al.mu.Unlock()
	if al.spent.Characters+n > al.planned.Characters {
		return fmt.Errorf("refusing to bill %s characters where the plan priced %s (%s): %w; plan again to see what the work costs",
			numfmt.Thousands(al.spent.Characters+n), numfmt.Thousands(al.planned.Characters), what, ErrUnpriced)
	}
	al.spent.Characters += n
	return nil
}

// seconds spends secs of audio sent to a listening check, or refuses
// them; what names the check in the refusal.
func (al *allowance) seconds(secs float64, what string) error {
	al.mu.Lock()
	defer al.mu.Unlock()
	if left := al.planned.AudioSeconds - al.spent.AudioSeconds; secs > left+1e-6 {
		return fmt.Errorf("refusing to check %s: the audio lasts %.1f s, and %.1f s of the %.1f s the plan priced for checks are left: %w; plan again to see what the work costs",
			what, secs, max(left, 0), al.planned.AudioSeconds, ErrUnpriced)
	}
	al.spent.AudioSeconds += secs
	return nil
}
