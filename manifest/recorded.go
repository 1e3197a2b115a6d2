package manifest

import (
	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/cache"
)

// MaxRecordingBytes is the largest recording a recorded synthesis reads:
// cache.MaxEntryContent (4 GiB), the largest output the output cache
// keeps, as for an imported file. Validation, the plan and apply refuse
// a larger one, naming the bound.
const MaxRecordingBytes = cache.MaxEntryContent

// Recorded is a synthesis's human recording (recorded:): the file is the
// synthesis's output, copied byte for byte, or converted to the declared
// audio_config where the conversion is lossless or Convert declares it,
// with no call to the service. The synthesis's text stays: the report,
// listening checks and the plan's diff use it.
type Recorded struct {
	// Path is the recording, relative to Dir and inside it (the rule of
	// text_file: owned.CheckRel; it is opened without following a link
	// out of the directory).
	Path string
	// Convert declares a lossy conversion acceptable (a rate, channel or
	// G.711 change, a narrower sample width).
	Convert bool
}

// recorded evaluates a synthesis's recorded: field, the path alone or a
// map of path and convert; nil when not set or refused (reported). The
// path is interpolated as output: is, so that a for_each instance names
// its own recording ("studio/${key}.wav").
func (x *expander) recorded(f *field, sc *scope) *Recorded {
	if f == nil || isNull(f.Val) {
		return nil
	}
	pf, r := f, &Recorded{}
	if n := deref(f.Val); n != nil && n.Kind == yaml.MappingNode {
		fs := fieldsOf(f.File, n)
		pf = fs["path"]
		if c := fs["convert"]; c != nil {
			r.Convert, _ = x.boolean(c, sc)
		}
		if pf == nil {
			x.failed = true
			x.ds.Errorf(f.Pos(), "recorded: no path").WithHint("name the recording: recorded: {path: studio/x.wav}")
			return nil
		}
	}
	p, _, ok := x.str(pf, sc)
	if !ok {
		return nil
	}
	rel, ok := x.inputRel(pf, "recorded", p)
	if !ok {
		return nil
	}
	r.Path = cleanRel(rel)
	return r
}
