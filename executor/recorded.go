package executor

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// MaxRecordingBytes is the largest recording a recorded synthesis reads:
// manifest.MaxRecordingBytes (4 GiB), the bound validation and the plan
// check too.
const MaxRecordingBytes = manifest.MaxRecordingBytes

// recordedOp makes a recorded synthesis's output from its recording
// (planner.Recording), with no call to the service: the recording is
// opened inside the manifest directory (no link out of it), must hold the
// bytes the plan hashed, and is copied or converted to the declared
// format (contract.CheckRecording) through the atomic output writing; the
// result is validated as the service's audio is, recorded with origin
// recorded, kept in the output cache under its fingerprint and journalled
// as a take. Its loudness is measured and its listening check made as
// a synthesis's are (the check as a restored take's).
type recordedOp struct {
	files  *outputs
	checks *restoreOp
	// enc encodes a recording for an mp3 or ogg output (nil: no encoder
	// on this machine; the plan then planned no such encoding).
	enc master.Encoder
}

func (op *recordedOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	sl.Release() // nothing is asked of the service
	r := a.Desired.Details().Recorded
	format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
	o, err := op.make(ctx, a, r, format)
	if err != nil {
		return result{}, fmt.Errorf("recorded %s: %w", r.Path, err)
	}
	made := &state.Resource{Outputs: []state.Output{o}, Origin: recordedOrigin(a)}
	secs, cerr := op.checks.check(ctx, a, made)
	if cerr != nil && ctx.Err() != nil {
		return result{}, cerr
	}
	res, err := op.files.record(a, made, 0, secs)
	if err == nil && cerr != nil {
		res.checkErr = unchecked(o.Path, cerr, false)
	}
	return res, err
}

// make writes the output of a from the recording r in format, measuring
// its loudness as it is written (as a synthesis's is), and commits it
// once it validates.
func (op *recordedOp) make(ctx context.Context, a *planner.Action, r *planner.Recording, format contract.Format) (state.Output, error) {
	f, err := op.files.root.OpenInput(filepath.FromSlash(r.Path))
	if err != nil {
		return state.Output{}, err
	}
	defer f.Close()
	if err := sameRecording(f, r.SHA256); err != nil {
		return state.Output{}, err
	}
	info, err := audio.ProbeReader(f)
	if err != nil {
		return state.Output{}, err
	}
	conv, err := contract.CheckRecording(info, format, r.Convert)
	if err != nil {
		return state.Output{}, err
	}
	out, err := op.files.output(a, a.Desired.Outputs[0].Path)
	if err != nil {
		return state.Output{}, err
	}
	defer out.Abort()
	op.files.measure(ctx, out, format)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return state.Output{}, err
	}
	var encoder string
	switch {
	case conv.Copy:
		err = copyRecording(out, f, r.SHA256)
	case conv.Encode != "":
		encoder, err = op.encode(ctx, r, format, out)
	default:
		err = convertRecording(out, f, conv, format)
		if err == nil {
			err = sameRecording(f, r.SHA256) // what was converted is what was planned
		}
	}
	if err != nil {
		return state.Output{}, err
	}
	o, err := out.Commit(audioValidator(format))
	o.Encoder = encoder
	return o, err
}

// encode encodes the recording r to the mp3 or ogg audio of format into
// out, mastered to contract.RecordingProfile (its rate and channels, no
// gain): a copy of the recording that holds the planned bytes is
// mastered in a private temporary directory, and the encoded file is
// written to out (measured as it is written). It returns the encoder's
// identity, which the output records.
func (op *recordedOp) encode(ctx context.Context, r *planner.Recording, format contract.Format, out io.Writer) (string, error) {
	p := contract.RecordingProfile(format)
	if op.enc == nil {
		return "", fmt.Errorf("encoding it to %s needs an encoder (ffmpeg), and none was found", format.Container)
	}
	id := master.Identity(p, op.enc)
	if err := state.CheckText("the encoder's identity", id, state.MaxEncoderLen); err != nil {
		return "", err // the record would refuse it after the file is written
	}
	tmp, err := os.MkdirTemp("", "voxform-recording-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src, err := copyInput(op.files, r.Path, r.SHA256, filepath.Join(tmp, "recording.wav"))
	if err != nil {
		return "", err
	}
	encoded := filepath.Join(tmp, "encoded."+p.Extension())
	if _, err := master.Master(ctx, src, nil, p, op.enc, tmp, encoded); err != nil {
		return "", scratchNamed(scratchNamed(err, src, r.Path), tmp+string(filepath.Separator), "")
	}
	return id, copyFile(out, encoded)
}

// sameRecording refuses a recording larger than MaxRecordingBytes or
// whose content is not sum (changed since the plan), reading f from its
// start.
func sameRecording(f *os.File, sum string) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxRecordingBytes+1))
	if err != nil {
		return err
	}
	return checkRecording(n, hex.EncodeToString(h.Sum(nil)), sum)
}

// checkRecording refuses n bytes of content got planned as want.
func checkRecording(n int64, got, want string) error {
	if n > MaxRecordingBytes {
		return fmt.Errorf("larger than %s bytes, the limit for a recording (MaxRecordingBytes)", numfmt.Thousands(MaxRecordingBytes))
	}
	if got != want {
		return errors.New("changed since the plan (its content is not what was planned); plan again")
	}
	return nil
}

// copyRecording copies the recording to out, hashing what it copies: the
// output is the planned bytes or nothing.
func copyRecording(out io.Writer, f io.Reader, sum string) error {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(f, MaxRecordingBytes+1))
	if err != nil {
		return err
	}
	return checkRecording(n, hex.EncodeToString(h.Sum(nil)), sum)
}

// convertRecording writes the WAV recording in f as audio of format, by
// conv: rates are resampled (audio.Resampler), channels mixed down to one
// (audio.Mono) or one channel repeated, and samples re-encoded; a WAV
// output is written with its header, others headerless. A data chunk
// that holds less than its header declares is an error (the output is
// then not committed).
func convertRecording(out io.WriteSeeker, f io.Reader, conv contract.Conversion, format contract.Format) error {
	br := bufio.NewReaderSize(f, 64<<10)
	from, n, err := audio.ReadWAVHeader(br)
	if err != nil {
		return err
	}
	data := &countingReader{r: br}
	if n > 0 { // 0 and audio.UnknownSize: to the end
		data.r = io.LimitReader(br, n)
	}
	if err := convertSamples(out, data, from, conv, format); err != nil {
		return err
	}
	if n > 0 && data.n < n { // a cut recording is not converted short
		return fmt.Errorf("data chunk declares %d bytes, the recording holds %d: it is cut short", n, data.n)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// convertSamples writes the samples of data, audio of format from, as
// audio of format, by conv (see convertRecording).
func convertSamples(out io.WriteSeeker, data io.Reader, from audio.Format, conv contract.Conversion, format contract.Format) error {
	var src audio.SampleSource
	src, err := audio.NewSampleReader(data, from)
	if err != nil {
		return err
	}
	if src, err = mixTo(src, conv.To.Channels); err != nil {
		return err
	}
	if from.SampleRate != conv.To.SampleRate {
		if src, err = audio.NewResampler(src, from.SampleRate, conv.To.SampleRate); err != nil {
			return err
		}
	}
	if format.Container != contract.WAV {
		return pumpSamples(src, out, conv.To)
	}
	w, err := audio.NewWAVWriter(out, conv.To)
	if err != nil {
		return err
	}
	if err := pumpSamples(src, w, conv.To); err != nil {
		return err
	}
	return w.Close()
}

// pumpSamples writes every sample of src to w in format to.
func pumpSamples(src audio.SampleSource, w io.Writer, to audio.Format) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	sw, err := audio.NewSampleWriter(bw, to)
	if err != nil {
		return err
	}
	buf := make([]float64, 4096*to.Channels)
	for {
		n, err := src.ReadSamples(buf)
		if n > 0 {
			if werr := sw.WriteSamples(buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
	}
}

// mixTo makes src of ch channels: as it is, mixed down to one, or its one
// channel repeated.
func mixTo(src audio.SampleSource, ch int) (audio.SampleSource, error) {
	switch {
	case src.Channels() == ch:
		return src, nil
	case ch == 1:
		return audio.Mono(src), nil
	case src.Channels() == 1:
		return &repeated{src: src, ch: ch}, nil
	}
	return nil, fmt.Errorf("no conversion of %d channels to %d", src.Channels(), ch)
}

// repeated is a mono source played on ch channels.
type repeated struct {
	src audio.SampleSource
	ch  int
	buf []float64
}

func (r *repeated) Channels() int { return r.ch }

func (r *repeated) ReadSamples(dst []float64) (int, error) {
	frames := len(dst) / r.ch
	if frames == 0 {
		return 0, errors.New("read samples: buffer smaller than one frame")
	}
	if cap(r.buf) < frames {
		r.buf = make([]float64, frames)
	}
	n, err := r.src.ReadSamples(r.buf[:frames])
	for i := 0; i < n; i++ {
		for c := 0; c < r.ch; c++ {
			dst[i*r.ch+c] = r.buf[i]
		}
	}
	return n * r.ch, err
}

// recordedOrigin is the origin of a's outputs when they are made (or
// restored from the output cache) from its recording: OriginRecorded for
// a recorded synthesis, "" (the service's) otherwise.
func recordedOrigin(a *planner.Action) string {
	if a.Desired.Details().Recorded != nil {
		return state.OriginRecorded
	}
	return ""
}
