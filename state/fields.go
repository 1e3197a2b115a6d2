package state

import (
	"fmt"
	"math"
)

// Bounds of the recorded fields whose content voxform takes from outside
// (the service's answers, a cache entry another machine wrote).
const (
	// MaxLabel bounds a label: a model name, a detected language.
	MaxLabel = 128
	// MaxRecordedSeconds bounds a recorded duration (about 11.6 days).
	MaxRecordedSeconds = 1_000_000
	// MaxLoudnessMagnitude bounds a loudness figure, in LUFS or dBTP,
	// either side of zero.
	MaxLoudnessMagnitude = 200
)

// CheckLabel refuses a label field that no honest source reports: more
// than MaxLabel bytes, not UTF-8, or holding a character that is not
// printable (a control character, an escape sequence, a bidirectional
// override). Empty is fine.
func CheckLabel(field, s string) error { return CheckText(field, s, MaxLabel) }

// CheckReported refuses a resource whose fields that voxform takes from
// outside could not be honest: its model and detected language
// (CheckLabel), its durations (finite, not negative, at most
// MaxRecordedSeconds) and the loudness of its outputs (finite, within
// MaxLoudnessMagnitude). Each error names the field.
func (r *Resource) CheckReported() error {
	if err := CheckLabel("model", r.Details().Model); err != nil {
		return err
	}
	if err := CheckLabel("detected_language", r.Details().DetectedLanguage); err != nil {
		return err
	}
	if err := checkSeconds("duration_seconds", r.Details().DurationSeconds); err != nil {
		return err
	}
	if err := checkSeconds("billed_audio_seconds", r.Details().BilledAudioSeconds); err != nil {
		return err
	}
	if r.BilledCharacters < 0 {
		return fmt.Errorf("billed_characters: negative (%d)", r.BilledCharacters)
	}
	for i, o := range r.Outputs {
		if o.Size < 0 {
			return fmt.Errorf("outputs[%d].size: negative (%d)", i, o.Size)
		}
		if err := o.Loudness.Check(); err != nil {
			return fmt.Errorf("outputs[%d].loudness.%w", i, err)
		}
		if err := o.Listen.Check(); err != nil {
			return fmt.Errorf("outputs[%d].listen.%w", i, err)
		}
	}
	if err := r.checkDeliveries(); err != nil {
		return err
	}
	if err := r.Details().Redaction.Check(); err != nil {
		return fmt.Errorf("redaction.%w", err)
	}
	for i, c := range r.Details().Chunks {
		if err := c.checkReported(); err != nil {
			return fmt.Errorf("chunks[%d].%w", i, err)
		}
	}
	return nil
}

// checkDeliveries refuses a resource whose outputs hold a delivery
// record no apply writes (Delivery.Check): a state is checked for them
// as it is read, as for its paths, and so is a cache entry.
func (r *Resource) checkDeliveries() error {
	for i, o := range r.Outputs {
		if err := o.Delivery.Check(); err != nil {
			return fmt.Errorf("outputs[%d].delivery.%w", i, err)
		}
		if err := checkEncoder(o.Encoder); err != nil {
			return fmt.Errorf("outputs[%d].%w", i, err)
		}
	}
	return nil
}

// checkReported refuses a chunk record's measured fields no honest
// measure gives.
func (c *ChunkRecord) checkReported() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"start_seconds", c.Start}, {"end_seconds", c.End}, {"lead_silence_seconds", c.Lead}, {"tail_silence_seconds", c.Tail}} {
		if err := checkSeconds(f.name, f.v); err != nil {
			return err
		}
	}
	if c.End < c.Start {
		return fmt.Errorf("end_seconds: %g, before start_seconds %g", c.End, c.Start)
	}
	if err := c.Loudness.Check(); err != nil {
		return fmt.Errorf("loudness.%w", err)
	}
	if err := c.Listen.Check(); err != nil {
		return fmt.Errorf("listen.%w", err)
	}
	return nil
}

// Check refuses loudness figures no meter gives: each finite and within
// MaxLoudnessMagnitude of zero. A nil Loudness is fine.
func (l *Loudness) Check() error {
	if l == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"integrated_lufs", l.Integrated}, {"true_peak_dbtp", l.TruePeak}} {
		if f.v != nil && !(math.Abs(*f.v) <= MaxLoudnessMagnitude) {
			return fmt.Errorf("%s: %g, beyond the limit of ±%d", f.name, *f.v, MaxLoudnessMagnitude)
		}
	}
	return nil
}

// checkSeconds refuses a duration that is not finite, is negative, or is
// more than MaxRecordedSeconds.
func checkSeconds(field string, v float64) error {
	if !(v >= 0 && v <= MaxRecordedSeconds) {
		return fmt.Errorf("%s: %g, not between 0 and the limit of %d", field, v, MaxRecordedSeconds)
	}
	return nil
}

// Check refuses a delivery record no apply writes: a profile name that is
// not a plain label, hashes that are not SHA-256 hex, an encoder identity
// longer than MaxEncoderLen or with control characters. A nil Delivery
// is fine.
func (d *Delivery) Check() error {
	if d == nil {
		return nil
	}
	if CheckLabel("profile", d.Profile) != nil || d.Profile == "" {
		return fmt.Errorf("profile: %q is not a profile name", d.Profile)
	}
	for _, h := range []struct{ name, v string }{{"fingerprint", d.Fingerprint}, {"source_sha256", d.Source}} {
		if !IsHexHash(h.v) {
			return fmt.Errorf("%s: %q is not a SHA-256", h.name, h.v)
		}
	}
	return checkEncoder(d.Encoder)
}

// checkEncoder refuses an encoder identity that is not text as CheckText
// takes it: longer than MaxEncoderLen, not UTF-8, or holding a character
// that is not printable (a control character, a bidirectional override).
func checkEncoder(id string) error {
	if CheckText("encoder", id, MaxEncoderLen) != nil {
		return fmt.Errorf("encoder: not an encoder identity (at most %d bytes, printable characters only)", MaxEncoderLen)
	}
	return nil
}

// MaxEncoderLen bounds an encoder identity (a delivery's, an encoded
// output's).
const MaxEncoderLen = 4096

// IsHexHash reports whether s is a SHA-256 as voxform writes one: 64
// lowercase hexadecimal digits.
func IsHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkOrigin refuses an origin no command records: one of the Origin
// constants or none, and a take's fingerprint only with OriginTake.
func (r *Resource) checkOrigin() error {
	switch r.Origin {
	case "", OriginImported, OriginRecorded:
		if r.Details().Take != "" {
			return fmt.Errorf("take: set on a resource whose origin is not %q", OriginTake)
		}
	case OriginTake:
		if !IsHexHash(r.Details().Take) {
			return fmt.Errorf("take: %q is not a fingerprint", r.Details().Take)
		}
	default:
		return fmt.Errorf("origin: %q is not one of %q, %q, %q", r.Origin, OriginImported, OriginTake, OriginRecorded)
	}
	return nil
}
