package executor

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Adoption is an output put in place for a declared resource without a
// call to the service ('voxform import' of an existing file, 'voxform
// use' of an earlier take): written as apply writes an output (a
// temporary file beside the path, validated as apply validates the
// service's, noted written, renamed into place) and recorded under the
// resource's desired fingerprint and request, so that the next plan finds
// it in sync.
type Adoption struct {
	Desired *planner.Desired
	// Prior is the state's record of the address (nil: none).
	Prior *state.Resource
	// Fill writes the output's content into the empty temporary file.
	Fill func(*os.File) error
	// Replace is the content of the file at the output path that the
	// output may replace ("": no file may be there).
	Replace string
	// Origin is the record's origin (state.OriginImported, OriginTake);
	// Take, with OriginTake, the fingerprint of the take put back.
	Origin, Take string
}

// Adoptable refuses a resource whose outputs an adoption cannot make
// whole: only a synthesis whose one declared output is its audio (its
// cue files and delivered outputs are made from the audio by apply), and
// not a recorded one (its output is its recording's, or the request and
// provenance would name a recording that did not make it).
func Adoptable(d *planner.Desired) error {
	if d.Kind != manifest.KindSynthesis {
		return fmt.Errorf("%s is a %s: only a synthesis's audio can be adopted", d.Address, d.Kind)
	}
	if len(d.Outputs) != 1 {
		return fmt.Errorf("%s declares cue files or delivered outputs besides its audio: only a synthesis whose one output is its audio can be adopted", d.Address)
	}
	if d.Details().Recorded != nil {
		return fmt.Errorf("%s is recorded (%s): its output is made from its recording, never adopted; change the recording instead", d.Address, d.Details().Recorded.Path)
	}
	return nil
}

// CheckAdopted checks the file at path as apply checks the output d
// declares (for a synthesis, its container, and a WAV's sample rate and
// channels, as its audio_config asks), before anything is written.
func CheckAdopted(d *planner.Desired, path string) error {
	if err := Adoptable(d); err != nil {
		return err
	}
	format, _ := contract.Resolve(d.Wire.Synthesis.AudioConfig) // the manifest was validated
	if err := audioValidator(format)(path); err != nil {
		return fmt.Errorf("%s is not the output %s declares (%s): %w", path, d.Address, describeFormat(format), err)
	}
	return nil
}

// describeFormat names the declared format of an output.
func describeFormat(f contract.Format) string {
	if f.Headered() {
		return fmt.Sprintf("%s, %d Hz, %d channel(s)", f.AudioContainer(), f.SampleRate, f.NumChannels)
	}
	return fmt.Sprintf("headerless %s, %d Hz", f.Container, f.SampleRate)
}

// Adopt puts ad's output in place and records it (see Adoption), with
// opts.Dir, Recorder, Hashes and Events. It calls no service, and keeps
// nothing in the output cache: an entry there is the service's answer to
// its fingerprint's request, which every project sharing the cache takes
// as such, and an imported file or a take put back is not that answer.
func Adopt(ctx context.Context, opts Options, ad Adoption) (*state.Resource, error) {
	d := ad.Desired
	if err := Adoptable(d); err != nil {
		return nil, err
	}
	if opts.Recorder == nil {
		return nil, errors.New("adopt: no state recorder")
	}
	root, err := owned.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	emit := opts.Events
	if emit == nil {
		emit = func(Event) {}
	}
	w := &outputs{dir: opts.Dir, root: root, recorder: opts.Recorder, cache: opts.Hashes, emit: emit}
	rel := d.Outputs[0].Path
	a := &planner.Action{Type: planner.Create, Address: d.Address, Desired: d, Prior: ad.Prior}
	if ad.Replace != "" {
		a.Type = planner.Replace
		x := a.Edit()
		x.Overwrite, x.OverwriteSHA256 = []string{rel}, map[string]string{rel: ad.Replace}
	}
	if ad.Prior != nil {
		for _, o := range ad.Prior.Outputs {
			if o.Path != rel {
				a.Edit().Removes = append(a.Details().Removes, o.Path) // no longer declared: removed once recorded, if unchanged
			}
		}
	}
	out, err := w.output(a, rel)
	if err != nil {
		return nil, err
	}
	defer out.Abort()
	if err := out.Fill(ad.Fill); err != nil {
		return nil, fmt.Errorf("write %s: %w", rel, err)
	}
	format, _ := contract.Resolve(d.Wire.Synthesis.AudioConfig)
	o, err := out.CommitWith(audioCheck(format))
	if err != nil {
		return nil, err
	}
	res := &state.Resource{Outputs: []state.Output{o}, Origin: ad.Origin}
	res.WithDetails(state.Details{Take: ad.Take})
	if _, err := w.record(a, res, 0, 0); err != nil {
		return nil, err
	}
	return res, nil
}
