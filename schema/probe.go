package schema

import (
	"errors"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
)

// probe reads an input file's audio header, unless probing is off. A file
// whose container voxform does not probe (AAC, M4A, ...) is not an error;
// a header that cannot be read is a warning, since the service judges it.
func (c *checker) probe(full, rel string, pos manifest.Pos) (audio.Info, bool) {
	if c.opts.NoProbe {
		return audio.Info{}, false
	}
	info, err := audio.Probe(full)
	if err != nil {
		if !errors.Is(err, audio.ErrUnsupported) {
			c.ds.Warnf(pos, "cannot read the audio header of %q: %v", rel, causeOfProbe(err))
		}
		return info, false
	}
	return info, true
}

func causeOfProbe(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// roundDuration renders a duration for messages.
func roundDuration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
