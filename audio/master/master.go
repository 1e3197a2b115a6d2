package master

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/deliver"
)

// Version is the version of mastering: bump it whenever a change makes
// Master write other bytes for the same source and profile. It is part of
// every delivered output's fingerprint (Identity).
const Version = 1

// Bounds of mastering.
const (
	// MaxGain is the most gain mastering adds to reach a loudness target:
	// a source quieter than that (or silent) is refused, not amplified
	// into its noise.
	MaxGain = 48.0
	// MaxSeconds is the longest source mastering reads, whatever the
	// profile (deliver's longest profile limit).
	MaxSeconds = deliver.MaxProfileSec
	// maxPasses bounds the measuring passes that correct the gain.
	maxPasses = 4
	// converged is how close (dB) a pass's loudness must come to the
	// target to end the correction.
	converged = 0.02
)

// threshold is the level below which a 10 ms window is silence.
const threshold = deliver.HeadTailThreshold

var errTooLong = errors.New("too long")

// Encoder encodes and decodes the codecs Go does not (MP3, AAC, Opus);
// *encode.Tool (package audio/encode, ffmpeg) is one.
type Encoder interface {
	// Encode encodes the WAV file wavIn as e describes into out,
	// deterministically: the same input gives the same bytes.
	Encode(ctx context.Context, wavIn string, e deliver.Encoding, out string) error
	// Decode writes the audio of the file in as a WAV file to w.
	Decode(ctx context.Context, in string, w io.Writer) error
	// Probe reads the stream of a file Go cannot read (MP4).
	Probe(ctx context.Context, path string) (Stream, error)
	// Identity says what changes the bytes of an encoding: the tool, its
	// version, the codec and its settings.
	Identity(e deliver.Encoding) string
}

// Stream is what an Encoder's Probe reads of a file's audio stream.
type Stream struct {
	Container  string // deliver's container names: "mp4", "ogg", ...
	Codec      string // deliver's codec names: "aac", "opus", ...
	SampleRate int
	Channels   int
	Bitrate    int  // bits per second: the stream's nominal or average rate
	CBR        bool // the stream's bit rate is constant
}

// Result is what Master wrote.
type Result struct {
	Measured deliver.Measured
	Results  []deliver.Result // every rule of the profile, each passed
	SHA256   string           // of the delivered file, hex
	Size     int64
	Seconds  float64
}

// RulesError is a mastered file that failed rules of its profile.
type RulesError struct {
	Profile string
	Failed  []deliver.Result
}

func (e *RulesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the mastered file fails profile %s:", e.Profile)
	for i, r := range e.Failed {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s, want %s", r.Rule, r.Measured, r.Target)
	}
	return b.String()
}

// Identity is what, besides the source and the profile, decides the bytes
// Master writes for p: the mastering's Version and the encoder's identity
// for p's encoding ("voxform wav" for the WAV codecs Go writes).
func Identity(p *deliver.Profile, enc Encoder) string {
	id := "voxform wav"
	if p.NeedsEncoder() {
		id = "no encoder"
		if enc != nil {
			id = enc.Identity(p.Encoding)
		}
	}
	return fmt.Sprintf("master %d; %s", Version, id)
}

// Master masters src for profile p into the file out and checks it: src
// is the synthesis's audio (WAV, MP3 or Ogg Opus, or headerless audio in
// format *raw); tmpDir takes the intermediate WAV file of an encoded
// profile; enc encodes, decodes and probes what Go does not (nil for a
// profile that does not NeedsEncoder). The file is measured (Measure) and
// checked against every rule of p: one that fails any is removed and the
// error (a *RulesError) names each failed rule; the Result returned with
// it still holds the figures and verdicts. On any error, out is removed;
// the caller gives out as a temporary path it renames.
func Master(ctx context.Context, src string, raw *audio.Format, p *deliver.Profile, enc Encoder, tmpDir, out string) (res Result, err error) {
	defer func() {
		if err != nil {
			os.Remove(out)
			err = fmt.Errorf("master %s for profile %s: %w", src, p.Name, err)
		}
	}()
	if err := usable(p, enc); err != nil {
		return Result{}, err
	}
	ms := newMastering(ctx, src, raw, p, tmpDir)
	defer ms.close()
	if res, err = rounds(ctx, ms, enc, tmpDir, out); err != nil {
		return Result{}, err
	}
	if failed := deliver.Failed(res.Results); len(failed) > 0 {
		return res, &RulesError{Profile: p.Name, Failed: failed}
	}
	if res.SHA256, err = fileSHA256(out); err != nil {
		return Result{}, err
	}
	return res, nil
}

// rounds masters into out and measures it, and again with adjusted
// targets while the file shows the encoding moved its loudness or peak
// (correct; at most maxRounds more times); it returns the last file's
// figures and verdicts.
func rounds(ctx context.Context, ms *mastering, enc Encoder, tmpDir, out string) (Result, error) {
	var adj adjust
	for round := 0; ; round++ {
		ms.adjust(adj)
		var err error
		if ms.p.NeedsEncoder() {
			err = masterEncoded(ctx, ms, enc, tmpDir, out)
		} else {
			err = masterWAV(ms, out)
		}
		if err != nil {
			return Result{}, err
		}
		m, err := Measure(ctx, out, enc)
		if err != nil {
			return Result{}, err
		}
		var again bool
		if adj, again = correct(ms.p, m, adj); !again || round == maxRounds {
			return Result{Measured: m, Results: deliver.Check(ms.p, m), Size: m.Bytes, Seconds: m.Seconds}, nil
		}
	}
}

// usable refuses a profile that is not valid or whose encoder is missing.
func usable(p *deliver.Profile, enc Encoder) error {
	if ps := deliver.Validate(p); len(ps) > 0 {
		return fmt.Errorf("invalid profile: %v", errors.Join(problems(ps)...))
	}
	if p.NeedsEncoder() && enc == nil {
		return fmt.Errorf("codec %s needs an encoder (ffmpeg) and none was given", p.Encoding.Codec)
	}
	return nil
}

func problems(ps []deliver.Problem) []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}

// masterWAV writes the mastered WAV file out.
func masterWAV(m *mastering, out string) error {
	f, err := os.OpenFile(out, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = m.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// masterEncoded writes the mastered audio to a WAV file in tmpDir and
// encodes it into out.
func masterEncoded(ctx context.Context, m *mastering, enc Encoder, tmpDir, out string) error {
	tmp, err := os.CreateTemp(tmpDir, "voxform-master-*.wav")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = m.write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := enc.Encode(ctx, tmp.Name(), m.p.Encoding, out); err != nil {
		return err // it names the codec
	}
	return ctx.Err()
}

// MasterPCM masters src for p up to, not including, the encoding: it
// writes to w a WAV file at p's rate and channels, in p's codec for a WAV
// profile and 32-bit float otherwise, and returns its frames. Packages
// join chapters from these. The profile's rules are not checked here
// (the encoding may still change the figures); Master checks them.
func MasterPCM(ctx context.Context, src string, raw *audio.Format, p *deliver.Profile, w io.WriteSeeker) (int64, error) {
	if ps := deliver.Validate(p); len(ps) > 0 {
		return 0, fmt.Errorf("master %s: invalid profile: %v", src, errors.Join(problems(ps)...))
	}
	ms := newMastering(ctx, src, raw, p, "")
	defer ms.close()
	n, err := ms.write(w)
	if err != nil {
		return 0, fmt.Errorf("master %s: %w", src, err)
	}
	return n, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// maxRounds bounds the masterings that correct for the encoding.
const maxRounds = 2

// correct returns the adjustment of the next mastering, if the delivered
// file m shows one is needed: its loudness more than 0.1 dB off the
// target (a lossy encoding moves it: LAME at 128 kbps took 0.45 LU off
// synthetic speech), or its peak over the ceiling (an encoder's
// overshoot; the next ceiling is lowered by it and 0.1 dB more).
func correct(p *deliver.Profile, m deliver.Measured, adj adjust) (adjust, bool) {
	again := false
	if l := p.Loudness; l != nil {
		got := m.Integrated
		if l.Measure == deliver.RMS {
			got = m.RMS
		}
		if d := l.Target - got; math.Abs(d) > 0.1 && !math.IsInf(got, 0) {
			adj.loudness += d
			again = true
		}
	}
	if c := p.Peak; c != nil {
		got := m.TruePeak
		if c.Measure == deliver.SamplePeak {
			got = m.SamplePeak
		}
		if got > c.Max {
			adj.ceiling += got - c.Max + 0.1
			again = true
		}
	}
	return adj, again
}
