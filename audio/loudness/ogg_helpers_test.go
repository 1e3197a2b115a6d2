package loudness

import (
	"github.com/voxform/voxform/audio/ogg"
)

// The Ogg page flags under the names the tests written before package
// ogg was the one page codec use.
const (
	oggFlagBOS      = ogg.BOS
	oggFlagContinue = ogg.Continued
	oggFlagEOS      = ogg.EOS
)
