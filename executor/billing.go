package executor

import (
	"errors"
	"fmt"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/planner"
)

// ErrUnpriced is wrapped by the error of an action that would bill more
// than its plan priced: the work is not done, nothing is called.
var ErrUnpriced = errors.New("work the plan did not price")

// checkPriced refuses to bill characters for the action a when they are
// more than the plan priced for it (a.Cost.Characters): what the plan
// took as free (a chunk in the cache, say) is no longer there, and the
// budget and the user's consent were given for the plan's figure. The
// caller checks before its first call, so an apply never bills more than
// its plan showed; what explains the difference is what.
func checkPriced(a *planner.Action, chars int64, what string) error {
	if chars <= a.Cost.Characters {
		return nil
	}
	return fmt.Errorf("refusing to bill %s characters where the plan priced %s (%s): %w; plan again to see what the work costs",
		numfmt.Thousands(chars), numfmt.Thousands(a.Cost.Characters), what, ErrUnpriced)
}
