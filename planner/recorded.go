package planner

import (
	"fmt"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// Recording is what the executor needs of a recorded synthesis
// (manifest.Recorded): the recording, its content hash when planned, and
// whether a lossy conversion is declared. The output is the recording,
// copied or converted to the declared format; the service is not called.
type Recording struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Convert bool   `json:"convert,omitempty"`
	// Encode, when set, is the container ("mp3", "ogg") the recording, a
	// WAV file, is encoded to (contract.RecordingProfile) by the outside
	// encoder: the plan makes sure this machine has it.
	Encode string `json:"encode,omitempty"`
}

// RecordedRole is the role of a recorded synthesis's recording among its
// Sources.
const RecordedRole = "recording"

// recorded makes d, a synthesis of s, the synthesis of its recording: the
// recording is hashed as other inputs are, the request is the recording
// and the declared format (recordedRequest), and nothing is billed. The
// text stays in d.Wire, for listening checks, the report and the diff.
func (b *builder) recorded(d *Desired, s *manifest.Synthesis) error {
	r := s.Details().Recorded
	at := fieldPos(s.Fields, "recorded.path", fieldPos(s.Fields, "recorded", s.Pos))
	if err := recordingFits(b.dir, at, r.Path); err != nil {
		return err // before hashing it
	}
	sum, err := inputHash(b.hash, at, "recording", r.Path)
	if err != nil {
		return err
	}
	format, _ := contract.Resolve(s.AudioConfig)
	d.Edit().Recorded = &Recording{Path: r.Path, SHA256: sum, Convert: r.Convert, Encode: recordingEncode(b.dir, r, format)}
	d.Edit().Sources = []Source{{Role: RecordedRole, Path: r.Path, SHA256: sum}}
	details := d.Edit()
	d.Characters, details.Chunks, details.DependsOn = 0, nil, nil
	return b.encode(d, recordedRequest(d.Details().Recorded, format))
}

// recordingEncode is the container the recording r is encoded to for
// an output of format: format's, when it is mp3 or ogg, convert: true is
// declared (validation refuses the encoding otherwise) and the recording
// is not already of that container (then it is copied); "" otherwise.
func recordingEncode(dir string, r *manifest.Recorded, format contract.Format) string {
	if !r.Convert || (format.Container != contract.MP3 && format.Container != contract.Ogg) ||
		string(recordingContainer(dir, r.Path)) == format.Container {
		return ""
	}
	return format.Container
}

// checkEncodings refuses, before anything is done, a plan that encodes a
// recording (Recording.Encode) on a machine without the encoder for it,
// as checkDeliveries refuses a delivery's: every action that makes a
// recorded output anew (a create, a replace, a repair not restored) is
// asked for, and every problem is listed once with the first resource
// that needs it and how many more (neededBy). An unchanged recorded output needs no encoder.
func (c *computer) checkEncodings() error {
	if c.in.Options.Restoring {
		return nil
	}
	users := map[string][]string{}
	var whys []string
	for _, a := range c.actions {
		d := a.Desired
		if d == nil || d.Details().Recorded == nil || d.Details().Recorded.Encode == "" || (a.Type != Create && a.Type != Replace && a.Type != Repair) {
			continue
		}
		format, _ := contract.Resolve(d.Wire.Synthesis.AudioConfig)
		if _, err := c.identity(contract.RecordingProfile(format)); err != nil {
			why := fmt.Sprintf("recorded: (convert: true, an %s output) %v", format.Container, err)
			if users[why] == nil {
				whys = append(whys, why)
			}
			users[why] = append(users[why], a.Address)
		}
	}
	if len(whys) == 0 {
		return nil
	}
	problems := make([]string, len(whys))
	for i, why := range whys {
		problems[i] = fmt.Sprintf("%s (%s)", why, neededBy(users[why]))
	}
	return fmt.Errorf("plan: recordings cannot be encoded:\n  %s", strings.Join(problems, "\n  "))
}

// RecordedCheckSlack is what the listening check of a recorded synthesis
// is priced at beyond its recording's duration, in seconds: the audio
// sent may be a little longer, for the conversion to the output's rate
// and the check's rendition at ListenRate each end on a whole frame
// (audio.Resampler), less than 1/8,000 s at the lowest rate an output
// has. 10 ms covers both.
const RecordedCheckSlack = 0.01

// recordedSeconds is the most audio the listening check of d, a recorded
// synthesis, sends: its recording's duration, probed as a transcription
// input's is (Input.Probe, by its header), and RecordedCheckSlack. ok is
// false when the recording cannot be probed.
func (c *computer) recordedSeconds(d *Desired) (secs float64, ok bool) {
	if c.in.Probe == nil {
		return 0, false
	}
	secs, err := c.in.Probe(d.Details().Recorded.Path)
	if err != nil || !(secs > 0) || secs > state.MaxRecordedSeconds {
		return 0, false
	}
	return secs + RecordedCheckSlack, true
}

// recordedRequest is the canonical request of a recorded synthesis: the
// recording (its content, its path, whether a lossy conversion is
// declared, and the converter's identity) and the declared format, as a
// synthesis's audio_config is, so that what reads the format of recorded
// audio from a request (contract.RecordedRawFormat) reads it alike. Not
// the voice, model or text: a change of those changes nothing while the
// recording is the output.
func recordedRequest(r *Recording, format contract.Format) map[string]any {
	rec := map[string]any{
		"sha256":    r.SHA256,
		"path":      r.Path,
		"convert":   r.Convert,
		"converter": contract.RecordingConverter,
	}
	return map[string]any{"recorded": rec, "audio_config": format.Canonical()}
}

// recordedSwitch names a change into or out of a recording: ok is false
// unless exactly one of the requests is a recording's. Nothing else of
// the two requests is comparable then.
func recordedSwitch(prior, request map[string]any) ([]string, bool) {
	_, wasRec := prior["recorded"].(map[string]any)
	cur, isRec := request["recorded"].(map[string]any)
	switch {
	case wasRec == isRec:
		return nil, false
	case isRec:
		return []string{fmt.Sprintf("recorded: added (from recording %v)", cur["path"])}, true
	}
	return []string{"recorded: removed, synthesized"}, true
}

// recordedReasons names what changed of a recording between two
// recorded requests: its path, its bytes, convert, the converter.
func recordedReasons(old, cur any) []string {
	om, _ := old.(map[string]any)
	cm, _ := cur.(map[string]any)
	var out []string
	if !equalJSON(om["path"], cm["path"]) {
		out = append(out, fmt.Sprintf("recording %v -> %v", om["path"], cm["path"]))
	}
	if !equalJSON(om["sha256"], cm["sha256"]) {
		out = append(out, fmt.Sprintf("recording %v changed", cm["path"]))
	}
	if !equalJSON(om["convert"], cm["convert"]) {
		out = append(out, fmt.Sprintf("recorded.convert %v -> %v", om["convert"], cm["convert"]))
	}
	if !equalJSON(om["converter"], cm["converter"]) {
		out = append(out, fmt.Sprintf("converter %v -> %v", om["converter"], cm["converter"]))
	}
	return out
}

// recordedCreate says where a recorded synthesis's new output comes from.
func recordedCreate(a *Action) {
	if a != nil && a.Type == Create && a.Desired.Details().Recorded != nil {
		a.Reasons = []string{fmt.Sprintf("from recording %s", a.Desired.Details().Recorded.Path)}
	}
}
