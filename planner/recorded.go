package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/deliver"
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
	// Encoder, when set, is the identity of what encodes the recording
	// to the declared mp3 or ogg output (EncoderFunc of RecordingProfile),
	// as the plan found it: apply refuses to encode with another.
	Encoder string `json:"encoder,omitempty"`
}

// RecordedRole is the role of a recorded synthesis's recording among its
// Sources.
const RecordedRole = "recording"

// recorded makes d, a synthesis of s, the synthesis of its recording: the
// recording is hashed as other inputs are, the request is the recording
// and the declared format (recordedRequest), and nothing is billed. The
// text stays in d.Wire, for listening checks, the report and the diff.
func (b *builder) recorded(d *Desired, s *manifest.Synthesis) error {
	r := s.Recorded
	at := fieldPos(s.Fields, "recorded.path", fieldPos(s.Fields, "recorded", s.Pos))
	if err := recordingFits(b.dir, at, r.Path); err != nil {
		return err // before hashing it
	}
	sum, err := inputHash(b.hash, at, "recording", r.Path)
	if err != nil {
		return err
	}
	format, _ := contract.Resolve(s.AudioConfig)
	enc, err := b.recordingEncoder(at, r, format)
	if err != nil {
		return err
	}
	d.Recorded = &Recording{Path: r.Path, SHA256: sum, Convert: r.Convert, Encoder: enc}
	d.Sources = []Source{{Role: RecordedRole, Path: r.Path, SHA256: sum}}
	d.Characters, d.Chunks, d.DependsOn = 0, nil, nil
	return b.encode(d, recordedRequest(d.Recorded, format))
}

// recordingEncoder is the identity of the encoder that makes the mp3 or
// ogg output of format from the recording r, found now as a delivery's
// is (the builder's EncoderFunc of RecordingProfile); "" when nothing is
// encoded: another output format, no convert: true (validation refuses
// the encoding then), or a recording already of the output's container
// (copied). No encoder on this machine fails the plan at pos.
func (b *builder) recordingEncoder(pos manifest.Pos, r *manifest.Recorded, format contract.Format) (string, error) {
	if !r.Convert || (format.Container != contract.MP3 && format.Container != contract.Ogg) || b.enc == nil {
		return "", nil
	}
	if string(recordingContainer(b.dir, r.Path)) == format.Container {
		return "", nil
	}
	id, err := b.enc(RecordingProfile(format))
	if err != nil {
		return "", fmt.Errorf("%s: recorded %s (convert: true, an %s output): %w", pos, r.Path, format.Container, err)
	}
	return id, nil
}

// RecordingProfile is the delivery profile a recording is encoded to
// for an output of the declared format f, mp3 or ogg: an encoding and no
// other rule, so that mastering (audio/master) converts the recording's
// rate and channels and encodes it as it does a delivery, with no gain,
// and the encoder's identity is the one a delivery records. MP3 is of
// constant bit rate at the declared bitrate and rate; Ogg is Opus at
// 48000 Hz (the rate an Opus stream is decoded at, whatever the declared
// one), of variable bit rate at libopus's default in ffmpeg (64 kbit/s
// mono, 96 kbit/s stereo), as the emulator's Ogg audio is.
func RecordingProfile(f contract.Format) *deliver.Profile {
	e := deliver.Encoding{SampleRate: f.SampleRate, Channels: f.NumChannels}
	if f.Container == contract.MP3 {
		kbps, _ := strconv.Atoi(strings.TrimSuffix(f.Bitrate, "k"))
		e.Container, e.Codec, e.BitrateMode, e.Bitrate = deliver.ContainerMP3, deliver.CodecMP3, deliver.CBR, kbps*1000
	} else {
		e.Container, e.Codec, e.BitrateMode, e.Bitrate = deliver.ContainerOgg, deliver.CodecOpus, deliver.VBR, 64000+32000*(f.NumChannels-1)
		e.SampleRate = 48000
	}
	return &deliver.Profile{Name: "recording", Encoding: e}
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
	secs, err := c.in.Probe(d.Recorded.Path)
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
	if r.Encoder != "" {
		rec["encoder"] = r.Encoder
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
	if oe, ce := om["encoder"], cm["encoder"]; !equalJSON(oe, ce) {
		was, _ := oe.(string)
		now, _ := ce.(string)
		out = append(out, fmt.Sprintf("encoder changed (%s -> %s)", encoderName(was), encoderName(now)))
	}
	return out
}

// recordedCreate says where a recorded synthesis's new output comes from.
func recordedCreate(a *Action) {
	if a != nil && a.Type == Create && a.Desired.Recorded != nil {
		a.Reasons = []string{fmt.Sprintf("from recording %s", a.Desired.Recorded.Path)}
	}
}

// encoderName names a recording's encoder identity in a plan's reasons
// (shortID), "none" for none.
func encoderName(id string) string {
	if id == "" {
		return "none"
	}
	return shortID(id)
}
