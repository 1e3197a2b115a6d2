package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/deliver"
)

// Bounds of the delivery language: what one manifest may declare, each
// named in the error that refuses the value past it.
const (
	// MaxDeliveries bounds the deliver: entries of one synthesis: 8, each
	// a mastering (and most an encoding) of the audio after every take.
	MaxDeliveries = 8
	// MaxDeliveryProfiles bounds the delivery_profiles: of a manifest: 64.
	MaxDeliveryProfiles = 64
	// MaxPackages bounds the packages: of a manifest: 64, each a join and
	// an encoding of all its chapters.
	MaxPackages = 64
	// MaxChapters bounds the chapters of one package: 1,000.
	MaxChapters = 1000
	// MaxTitleChars bounds a package's title, author and narrator and
	// each chapter's title, in characters: 500, far more than a player
	// shows and what an ID3v2 frame or an MP4 atom holds with ease.
	MaxTitleChars = 500
	// MaxCoverBytes is the largest cover image a package reads: 10 MiB
	// (a 3000 x 3000 JPEG is some 2 MB). It is written into each book
	// file.
	MaxCoverBytes = 10 << 20
	// maxSizeBytes bounds a profile's max_size: 1 TB, far past any file.
	maxSizeBytes = 1 << 40
)

// defaultCodec is the codec a container takes when a profile names the
// container and not the codec.
var defaultCodec = map[string]string{
	deliver.ContainerWAV: deliver.CodecPCM16,
	deliver.ContainerMP3: deliver.CodecMP3,
	deliver.ContainerMP4: deliver.CodecAAC,
	deliver.ContainerOgg: deliver.CodecOpus,
}

// profilePos holds where each field of a delivery profile is written
// ("encoding", "encoding.sample_rate", "head", ...).
type profilePos map[string]Pos

// of is the position of a deliver.Problem's field: the field's, else its
// enclosing field's, else def.
func (pp profilePos) of(field string, def Pos) Pos {
	if p, ok := pp[field]; ok {
		return p
	}
	if parent, _, ok := strings.Cut(field, "."); ok {
		if p, ok := pp[parent]; ok {
			return p
		}
	}
	return def
}

// deliveryProfiles expands the delivery_profiles: block, in name order,
// into Manifest.DeliveryProfiles. A refused profile is reported and left
// out; a deliver: that names it is not reported again.
func (x *expander) deliveryProfiles() {
	x.m.DeliveryProfiles = map[string]*deliver.Profile{}
	x.badProfiles = map[string]bool{}
	for i, name := range x.raw.sortedNames("delivery_profiles") {
		b := x.raw.Blocks["delivery_profiles"][name]
		switch {
		case i == MaxDeliveryProfiles:
			x.ds.Errorf(b.Pos(), "delivery profile %q is past the %d delivery profiles a manifest may declare", name, MaxDeliveryProfiles).
				WithHint("start profiles from the built-ins (%s) with base:", strings.Join(deliver.BuiltinNames(), ", "))
			fallthrough
		case i > MaxDeliveryProfiles, x.raw.isBroken("delivery_profiles", name):
			x.badProfiles[name] = true
			continue
		}
		if p := x.deliveryProfile(b); p != nil {
			x.m.DeliveryProfiles[name] = p
		} else {
			x.badProfiles[name] = true
		}
	}
	x.profileNames = mapKeys(x.m.DeliveryProfiles)
	for n := range x.badProfiles {
		x.profileNames = append(x.profileNames, n)
	}
	slices.Sort(x.profileNames)
	x.profileCandidates = append(deliver.BuiltinNames(), x.profileNames...)
}

// deliveryProfile builds one delivery_profiles: entry: base:'s rules (or
// none) with the entry's own over them, checked by deliver.Validate, each
// problem at the field it names. Nil when refused (reported).
func (x *expander) deliveryProfile(b *Block) *deliver.Profile {
	name := b.Name
	if deliver.Builtin(name) != nil {
		x.ds.Errorf(b.Pos(), "delivery profile %q has the name of a built-in profile", name).
			WithHint("give it another name; base: %s starts it from the built-in's rules", name)
		return nil
	}
	fs := fieldsOf(b.File, b.Node)
	n := len(fs)
	if x.raw.dropBroken("delivery_profiles", name, fs); len(fs) < n {
		return nil // a field the schema refused (reported): the rest would only follow from it
	}
	sc := x.scope()
	x.failed = false
	pp := profilePos{}
	p := x.profileBase(b, fs, sc, pp)
	if p == nil {
		return nil
	}
	x.profileEncoding(name, p, fs["encoding"], sc, pp)
	x.profileLoudness(name, p, fs["loudness"], sc, pp)
	x.profilePeak(name, p, fs["peak"], sc, pp)
	x.profileNoiseFloor(p, fs["noise_floor"], sc, pp)
	p.Head = x.profilePad(name, p.Head, fs["head"], sc, pp)
	p.Tail = x.profilePad(name, p.Tail, fs["tail"], sc, pp)
	x.profileLimits(p, fs, sc, pp)
	if x.failed {
		return nil
	}
	problems := deliver.Validate(p)
	for _, pr := range problems {
		if pr.Field != "encoding.container" && strings.HasPrefix(pr.Field, "encoding.") && problems[0].Field == "encoding.container" {
			continue // follows from the container, which is named
		}
		x.ds.Errorf(pp.of(pr.Field, b.Pos()), "delivery profile %q: %s: %s", name, pr.Field, pr.Message)
	}
	if len(problems) > 0 {
		return nil
	}
	return p
}

// profileBase is where a profile starts: a copy of its base:, or an
// empty profile when it has its own encoding:; nil when refused
// (reported).
func (x *expander) profileBase(b *Block, fs map[string]*field, sc *scope, pp profilePos) *deliver.Profile {
	name := b.Name
	f := fs["base"]
	if f == nil {
		if fs["encoding"] == nil {
			x.ds.Errorf(b.Pos(), "delivery profile %q has no encoding and no base", name).
				WithHint("set encoding: (container, codec, sample_rate, ...), or base: one of %s", strings.Join(deliver.BuiltinNames(), ", "))
			return nil
		}
		return &deliver.Profile{Name: name}
	}
	pp["base"] = f.Pos()
	base, _, ok := x.str(f, sc)
	if !ok {
		return nil
	}
	p := deliver.Builtin(base)
	if p == nil {
		d := x.ds.Errorf(f.Pos(), "delivery profile %q: base %q is not a built-in profile (%s)", name, base, strings.Join(deliver.BuiltinNames(), ", "))
		if sg := Suggest(base, deliver.BuiltinNames()); sg != "" {
			d.WithHint("did you mean %q?", sg)
		}
		return nil
	}
	p.Name, p.Source = name, ""
	return p
}

// subFields returns the fields of a map-valued field, recording their
// positions as "prefix.name"; nil (reported) when the value is no map.
func (x *expander) subFields(what string, f *field, pp profilePos, want string) map[string]*field {
	n := deref(f.Val)
	if n.Kind != yaml.MappingNode {
		x.failed = true
		x.ds.Errorf(f.Pos(), "%s: want %s", what, want)
		return nil
	}
	fs := fieldsOf(f.File, n)
	for name, sf := range fs {
		pp[f.Name+"."+name] = sf.Pos()
	}
	return fs
}

// profileEncoding sets the encoding: fields written over the base's. A
// container other than the base's takes its own default codec (and no
// bit rate for WAV, an average one for MP4) unless the block names them.
func (x *expander) profileEncoding(name string, p *deliver.Profile, f *field, sc *scope, pp profilePos) {
	e := &p.Encoding
	at := pp.of("base", Pos{})
	if f != nil {
		pp["encoding"], at = f.Pos(), f.Pos()
		fs := x.subFields(fmt.Sprintf("delivery profile %q: encoding", name), f, pp, "a map of container, codec, sample_rate, channels, bitrate, bitrate_mode")
		if fs == nil {
			return
		}
		if c, _, ok := x.str(fs["container"], sc); ok && c != e.Container {
			e.Container, e.Codec = c, defaultCodec[c]
			switch {
			case c == deliver.ContainerWAV:
				e.BitrateMode, e.Bitrate = "", 0
			case c == deliver.ContainerMP4:
				e.BitrateMode = deliver.VBR // AAC has no constant bit rate
			case e.BitrateMode == "":
				e.BitrateMode = deliver.CBR
			}
		}
		if v, _, ok := x.str(fs["codec"], sc); ok {
			e.Codec = v
		}
		if v, ok := x.integer(fs["sample_rate"], sc); ok {
			e.SampleRate = int(v)
		}
		if v, ok := x.integer(fs["channels"], sc); ok {
			e.Channels = int(v)
		}
		if v, _, ok := x.str(fs["bitrate_mode"], sc); ok {
			e.BitrateMode = v
		}
		if v, ok := x.bitrate(fs["bitrate"], sc); ok {
			e.Bitrate = v
		}
	}
	if e.Channels == 0 {
		e.Channels = 1
	}
	if !x.failed {
		x.encodingRequired(name, e, at)
	}
}

// encodingRequired reports, at at, each encoding field neither the
// profile nor its base gives.
func (x *expander) encodingRequired(name string, e *deliver.Encoding, at Pos) {
	for _, req := range []struct {
		field string
		unset bool
	}{
		{"container", e.Container == ""},
		{"sample_rate", e.SampleRate == 0},
		{"bitrate", defaultCodec[e.Container] != "" && e.Container != deliver.ContainerWAV && e.Bitrate == 0},
	} {
		if req.unset {
			x.failed = true
			x.ds.Errorf(at, "delivery profile %q: encoding.%s is required", name, req.field).
				WithHint("for example encoding: { container: mp3, sample_rate: 44100, bitrate: 192k }")
		}
	}
}

// bitrate evaluates a bit rate: "192k" (kbps, as audio_config writes
// it) or a number of bits per second.
func (x *expander) bitrate(f *field, sc *scope) (int, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0, false
	}
	if n, isInt := asInt(v); isInt && n > 0 && n <= math.MaxInt32 {
		return int(n), true
	}
	if s, isStr := v.(string); isStr {
		k, cut := strings.CutSuffix(strings.TrimSpace(strings.ToLower(s)), "k")
		if n, err := strconv.Atoi(k); err == nil && cut && n > 0 && n <= 1_000_000 {
			return n * 1000, true
		}
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "%s: want a bit rate like \"192k\" or a number of bits per second, not %s", f.Name, quoteValue(v))
	return 0, false
}

// profileLoudness sets loudness: over the base's. A target written alone
// passes within 1 (LU or dB) of it: min and max default to target-1 and
// target+1. null removes the base's rule.
func (x *expander) profileLoudness(name string, p *deliver.Profile, f *field, sc *scope, pp profilePos) {
	if f == nil {
		return
	}
	pp["loudness"] = f.Pos()
	if isNull(f.Val) {
		p.Loudness = nil
		return
	}
	fs := x.subFields(fmt.Sprintf("delivery profile %q: loudness", name), f, pp, "a map of measure, target, min, max")
	if fs == nil {
		return
	}
	l := deliver.Level{Measure: deliver.LUFS}
	had := p.Loudness != nil
	if had {
		l = *p.Loudness
	}
	if v, _, ok := x.str(fs["measure"], sc); ok {
		l.Measure = v
	}
	if v, ok := x.number(fs["target"], sc); ok {
		l.Target, l.Min, l.Max, had = v, v-1, v+1, true
	} else if !had && fs["target"] == nil {
		x.failed = true
		x.ds.Errorf(f.Pos(), "delivery profile %q: loudness.target is required", name).
			WithHint("for example loudness: { measure: lufs, target: -16 }")
	}
	if v, ok := x.number(fs["min"], sc); ok {
		l.Min = v
	}
	if v, ok := x.number(fs["max"], sc); ok {
		l.Max = v
	}
	p.Loudness = &l
}

// profilePeak sets peak: over the base's (measure true by default); null
// removes the base's rule.
func (x *expander) profilePeak(name string, p *deliver.Profile, f *field, sc *scope, pp profilePos) {
	if f == nil {
		return
	}
	pp["peak"] = f.Pos()
	if isNull(f.Val) {
		p.Peak = nil
		return
	}
	fs := x.subFields(fmt.Sprintf("delivery profile %q: peak", name), f, pp, "a map of measure and max")
	if fs == nil {
		return
	}
	c := deliver.Ceiling{Measure: deliver.TruePeak}
	had := p.Peak != nil
	if had {
		c = *p.Peak
	}
	if v, _, ok := x.str(fs["measure"], sc); ok {
		c.Measure = v
	}
	if v, ok := x.number(fs["max"], sc); ok {
		c.Max = v
	} else if !had && fs["max"] == nil {
		x.failed = true
		x.ds.Errorf(f.Pos(), "delivery profile %q: peak.max is required", name).
			WithHint("for example peak: { measure: true, max: -1 }")
	}
	p.Peak = &c
}

// profileNoiseFloor sets noise_floor (dB); null removes the base's.
func (x *expander) profileNoiseFloor(p *deliver.Profile, f *field, sc *scope, pp profilePos) {
	if f == nil {
		return
	}
	pp["noise_floor"] = f.Pos()
	if isNull(f.Val) {
		p.NoiseFloor = nil
		return
	}
	if v, ok := x.number(f, sc); ok {
		p.NoiseFloor = &v
	}
}

// profilePad evaluates head: or tail: over the base's: a number of
// seconds (min = max = seconds, digital silence), or a map of seconds,
// min, max and tone, where seconds written alone also sets min and max.
// null removes the base's rule.
func (x *expander) profilePad(name string, base *deliver.Pad, f *field, sc *scope, pp profilePos) *deliver.Pad {
	if f == nil {
		return base
	}
	pp[f.Name] = f.Pos()
	if isNull(f.Val) {
		return nil
	}
	if deref(f.Val).Kind == yaml.ScalarNode {
		v, ok := x.number(f, sc)
		if !ok {
			return base
		}
		return &deliver.Pad{Seconds: v, Min: v, Max: v}
	}
	fs := x.subFields(fmt.Sprintf("delivery profile %q: %s", name, f.Name), f, pp, "a number of seconds, or a map of seconds, min, max, tone")
	if fs == nil {
		return base
	}
	var pad deliver.Pad
	if base != nil {
		pad = *base
	}
	if v, ok := x.number(fs["seconds"], sc); ok {
		pad.Seconds, pad.Min, pad.Max = v, v, v
	} else if base == nil && fs["seconds"] == nil {
		x.failed = true
		x.ds.Errorf(f.Pos(), "delivery profile %q: %s.seconds is required", name, f.Name).
			WithHint("for example %s: { seconds: 0.75, min: 0.5, max: 1 }", f.Name)
	}
	if v, ok := x.number(fs["min"], sc); ok {
		pad.Min = v
	}
	if v, ok := x.number(fs["max"], sc); ok {
		pad.Max = v
	}
	if v, ok := x.number(fs["tone"], sc); ok {
		pad.Tone = &v
	}
	return &pad
}

// profileLimits sets max_duration (seconds, or a duration like "5m") and
// max_size ("50MB", or bytes); null removes the base's.
func (x *expander) profileLimits(p *deliver.Profile, fs map[string]*field, sc *scope, pp profilePos) {
	if f := fs["max_duration"]; f != nil {
		pp["max_duration"] = f.Pos()
		p.MaxSeconds = 0
		if d, ok := x.duration(f, sc); ok {
			p.MaxSeconds = d.Seconds()
		}
	}
	if f := fs["max_size"]; f != nil {
		pp["max_size"] = f.Pos()
		p.MaxBytes = 0
		if n, ok := x.size(f, sc); ok {
			p.MaxBytes = n
		}
	}
}

// sizeUnits are the units of a size: decimal (kB, MB, GB) as platforms
// state their limits, and binary (KiB, MiB, GiB).
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000}, {"b", 1},
}

// size evaluates a size: a number of bytes, or a number and a unit
// ("50MB", "1.5 GiB"), at most maxSizeBytes.
func (x *expander) size(f *field, sc *scope) (int64, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok || isNull(f.Val) {
		return 0, false
	}
	n, isNum := asFloat(v)
	if s, isStr := v.(string); isStr && !isNum {
		t := strings.ToLower(strings.TrimSpace(s))
		for _, u := range sizeUnits {
			if num, cut := strings.CutSuffix(t, u.suffix); cut {
				if f, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
					n, isNum = f*float64(u.mult), true
				}
				break
			}
		}
	}
	if isNum && n > 0 && n <= maxSizeBytes && !math.IsNaN(n) {
		return int64(n), true
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "%s: want a size like \"50MB\" or a number of bytes, above 0 and at most 1 TB, not %s", f.Name, quoteValue(v))
	return 0, false
}
