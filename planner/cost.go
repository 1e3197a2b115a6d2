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
	if b == nil {
		return nil
	}
	var over []string
	if b.MaxCharacters != nil && c.Characters > *b.MaxCharacters {
		over = append(over, fmt.Sprintf("%s billable characters, over budget.max_characters of %s",
			numfmt.Thousands(c.Characters), numfmt.Thousands(*b.MaxCharacters)))
	}
	if b.MaxAudioSeconds != nil {
		if c.AudioSeconds > *b.MaxAudioSeconds {
			over = append(over, fmt.Sprintf("%s of audio to transcribe, over budget.max_audio_seconds of %s (%s)",
				Duration(c.AudioSeconds), strconv.FormatFloat(*b.MaxAudioSeconds, 'f', -1, 64), Duration(*b.MaxAudioSeconds)))
		}
		if c.UnknownAudio > 0 {
			over = append(over, fmt.Sprintf("%d input%s of unknown duration cannot be held to budget.max_audio_seconds",
				c.UnknownAudio, plural(c.UnknownAudio)))
		}
	}
	if len(over) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s", b.Pos, ErrBudget, strings.Join(over, "; "))
}
