package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
)

// Cost is what a plan or an action bills.
type Cost struct {
	// Characters are billable characters of synthesis text.
	Characters int64 `json:"characters"`
	// AudioSeconds is audio to transcribe.
	AudioSeconds float64 `json:"audio_seconds"`
	// UnknownAudio counts inputs to transcribe whose duration is unknown
	// before apply (URLs, containers the probe cannot read).
	UnknownAudio int `json:"unknown_audio_inputs"`
}

// Add returns the sum of two costs.
func (c Cost) Add(o Cost) Cost {
	return Cost{
		Characters:   c.Characters + o.Characters,
		AudioSeconds: c.AudioSeconds + o.AudioSeconds,
		UnknownAudio: c.UnknownAudio + o.UnknownAudio,
	}
}

// IsZero reports whether the cost is nothing.
func (c Cost) IsZero() bool { return c == Cost{} }

// Line is the plan's cost line:
// "Cost: 1,234 billable characters, 0h12m30s of audio to transcribe."
func (c Cost) Line() string {
	s := fmt.Sprintf("Cost: %s billable characters, %s of audio to transcribe", numfmt.Thousands(c.Characters), Duration(c.AudioSeconds))
	if c.UnknownAudio > 0 {
		s += fmt.Sprintf(" (plus %d input%s of unknown duration)", c.UnknownAudio, plural(c.UnknownAudio))
	}
	return s + "."
}

// Short is a cost for one table cell: "21 chars", "0h01m05s audio", "free".
func (c Cost) Short() string {
	switch {
	case c.Characters > 0:
		return numfmt.Thousands(c.Characters) + " chars"
	case c.AudioSeconds > 0:
		return Duration(c.AudioSeconds) + " audio"
	case c.UnknownAudio > 0:
		return "audio, length unknown"
	}
	return "free"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Duration formats seconds as 0h12m30s, rounding up so that a cost is never
// understated.
func Duration(secs float64) string {
	t := int64(math.Ceil(secs - 1e-9))
	if t < 0 {
		t = 0
	}
	return fmt.Sprintf("%dh%02dm%02ds", t/3600, t/60%60, t%60)
}

// CheckBudget refuses a cost over the manifest's budget, naming every limit
// exceeded with the figure and the limit. A budget on audio seconds also
// refuses inputs of unknown duration, which could exceed it. A cost equal
// to a limit is within it.
func CheckBudget(c Cost, b *manifest.Budget) error {
	return checkBudget(c, c, 0, b)
}

// CheckBudget refuses a plan whose cost, or whose worst case (every take
// regenerate allows made, each checked), passes the manifest's budget:
// apply never bills more than the plan priced, and the plan prices the
// worst case. A limit only the worst case passes is named as such ("at
// worst, with regenerate: 2, ...") beside what the plan bills when every
// check passes.
func (p *Plan) CheckBudget(b *manifest.Budget) error {
	return checkBudget(p.Cost, p.Worst, p.Regenerate(), b)
}

// Regenerate is the most takes regenerate allows a failing item of the
// plan beyond its first (0 without listening checks).
func (p *Plan) Regenerate() int {
	n := 0
	for _, a := range p.Actions {
		if a.Listen != nil {
			n = max(n, a.Listen.Regenerate)
		}
	}
	return n
}

// checkBudget is CheckBudget of a cost whose worst case, with regenerate
// takes more, is worst.
func checkBudget(c, worst Cost, regenerate int, b *manifest.Budget) error {
	if b == nil {
		return nil
	}
	worst = Cost{Characters: max(c.Characters, worst.Characters), AudioSeconds: max(c.AudioSeconds, worst.AudioSeconds), UnknownAudio: max(c.UnknownAudio, worst.UnknownAudio)}
	atWorst := fmt.Sprintf("at worst, with regenerate: %d, ", regenerate)
	var over []string
	if lim := b.MaxCharacters; lim != nil {
		if v := worst.Characters; v > *lim {
			s := fmt.Sprintf("%s billable characters, over budget.max_characters of %s", numfmt.Thousands(v), numfmt.Thousands(*lim))
			if c.Characters <= *lim {
				s = atWorst + s + fmt.Sprintf(" (%s when every check passes)", numfmt.Thousands(c.Characters))
			}
			over = append(over, s)
		}
	}
	if lim := b.MaxAudioSeconds; lim != nil {
		if v := worst.AudioSeconds; v > *lim {
			s := fmt.Sprintf("%s of audio to transcribe, over budget.max_audio_seconds of %s (%s)",
				Duration(v), strconv.FormatFloat(*lim, 'f', -1, 64), Duration(*lim))
			if c.AudioSeconds <= *lim {
				s = atWorst + s + fmt.Sprintf("; %s when every check passes", Duration(c.AudioSeconds))
			}
			over = append(over, s)
		}
		if worst.UnknownAudio > 0 {
			over = append(over, fmt.Sprintf("%d input%s of unknown duration cannot be held to budget.max_audio_seconds",
				worst.UnknownAudio, plural(worst.UnknownAudio)))
		}
	}
	if len(over) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s", b.Pos, ErrBudget, strings.Join(over, "; "))
}

// CostLine is the plan's cost line (Cost.Line), saying which part of the
// audio is listening checks when there are any: "Cost: 1,234 billable
// characters, 0h12m30s of audio to transcribe (0h02m10s of it listening
// checks)."
func (p *Plan) CostLine() string {
	line := p.Cost.Line()
	secs := 0.0
	for _, a := range p.Actions {
		if a.Listen != nil {
			secs += a.Listen.AudioSeconds
		}
	}
	if secs <= 0 {
		return line
	}
	return strings.TrimSuffix(line, ".") + fmt.Sprintf(" (%s of it listening checks).", Duration(secs))
}
