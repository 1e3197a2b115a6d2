package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/deliver"
)

const deliverHead = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n"

// diagLines renders diagnostics one a line, hints left out.
func diagLines(ds Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Pos.String()+": "+string(d.Severity)+": "+d.Message)
	}
	return out
}

// wantDiags fails unless ds are exactly want (hints left out).
func wantDiags(t *testing.T, ds Diagnostics, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, diagLines(ds)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\ngot:\n%s", diff, strings.Join(diagLines(ds), "\n"))
	}
}

func delivered(s *Synthesis) []string {
	var out []string
	for _, d := range s.Details().Deliver {
		out = append(out, d.Profile.Name+" "+d.Output)
	}
	return out
}

// TestDeliverForms: a name, a list of names, a list of {profile, output}
// and one map; the default path is <dir of output>/<profile>/<stem>.<ext>;
// a custom profile is named as a built-in is.
func TestDeliverForms(t *testing.T) {
	m, ds := load(t, deliverHead+`delivery_profiles:
  quiet-ivr: { base: telephony, peak: { max: -2 } }
syntheses:
  one: { voice: v, text: hi, output: build/ivr/hi/welcome.ulaw, deliver: telephony }
  names: { voice: v, text: hi, output: build/a.wav, deliver: [telephony, acx, quiet-ivr] }
  maps:
    voice: v
    text: hi
    output: build/b.mp3
    deliver:
      - telephony
      - { profile: acx, output: build/acx/b-master.mp3 }
      - { profile: podcast }
  single: { voice: v, text: hi, output: build/c.wav, deliver: { profile: broadcast, output: out/c.wave } }
  none: { voice: v, text: hi, output: build/d.wav, deliver: [] }
  bare: { voice: v, text: hi, output: noext, deliver: amazon-connect }
`, nil, LoadOptions{})
	wantDiags(t, ds)
	got := map[string][]string{}
	for _, s := range m.Syntheses {
		got[s.Name] = delivered(s)
	}
	want := map[string][]string{
		"one":    {"telephony build/ivr/hi/telephony/welcome.wav"},
		"names":  {"telephony build/telephony/a.wav", "acx build/acx/a.mp3", "quiet-ivr build/quiet-ivr/a.wav"},
		"maps":   {"telephony build/telephony/b.wav", "acx build/acx/b-master.mp3", "podcast build/podcast/b.mp3"},
		"single": {"broadcast out/c.wave"},
		"none":   nil,
		"bare":   {"amazon-connect amazon-connect/noext.wav"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deliveries (-want +got):\n%s", diff)
	}
	for _, s := range m.Syntheses {
		if s.Name == "names" && s.Details().Deliver[2].Profile != m.DeliveryProfiles["quiet-ivr"] {
			t.Errorf("quiet-ivr is not the delivery_profiles: entry")
		}
		if s.Name == "maps" && s.Details().Deliver[1].Pos != (Pos{File: "voxform.yaml", Line: 15, Col: 33}) {
			t.Errorf("an output's delivery is at %v, want its output", s.Details().Deliver[1].Pos)
		}
	}
}

// TestDeliverDefaults: defaults.synthesis deliver: applies to every
// synthesis that sets none, one that sets its own replaces it, and the
// default's profiles are resolved once and shared.
func TestDeliverDefaults(t *testing.T) {
	m, ds := load(t, deliverHead+`defaults:
  synthesis:
    deliver: [telephony, { profile: acx }]
syntheses:
  a: { voice: v, text: hi, output: x/a.wav }
  b: { voice: v, text: hi, output: y/b.wav }
  own: { voice: v, text: hi, output: z/own.wav, deliver: podcast }
  off: { voice: v, text: hi, output: z/off.wav, deliver: [] }
`, nil, LoadOptions{})
	wantDiags(t, ds)
	got := map[string][]string{}
	by := map[string]*Synthesis{}
	for _, s := range m.Syntheses {
		got[s.Name], by[s.Name] = delivered(s), s
	}
	want := map[string][]string{
		"a":   {"telephony x/telephony/a.wav", "acx x/acx/a.mp3"},
		"b":   {"telephony y/telephony/b.wav", "acx y/acx/b.mp3"},
		"own": {"podcast z/podcast/own.mp3"},
		"off": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deliveries (-want +got):\n%s", diff)
	}
	if by["a"].Details().Deliver[1].Profile != by["b"].Details().Deliver[1].Profile {
		t.Errorf("the default's profile is evaluated per synthesis, not shared")
	}
	if p := by["a"].Details().Deliver[0].Pos; p.Line != 6 {
		t.Errorf("a default's delivery is at %v, want the defaults line 6", p)
	}
}

// TestDeliverForEach: an output interpolated per instance, and a profile
// chosen by the data.
func TestDeliverForEach(t *testing.T) {
	m, ds := load(t, deliverHead+`syntheses:
  prompts:
    for_each: { welcome: telephony, goodbye: amazon-connect }
    voice: v
    text: hi
    output: build/${each.key}.ulaw
    deliver:
      - { profile: "${each.value}", output: "ivr/${each.value}/${each.key}.wav" }
      - { profile: podcast, output: "pod/${each.key}.mp3" }
`, nil, LoadOptions{})
	wantDiags(t, ds)
	var got []string
	for _, s := range m.Syntheses {
		got = append(got, delivered(s)...)
	}
	want := []string{"amazon-connect ivr/amazon-connect/goodbye.wav", "podcast pod/goodbye.mp3",
		"telephony ivr/telephony/welcome.wav", "podcast pod/welcome.mp3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deliveries (-want +got):\n%s", diff)
	}
}

// TestDeliverErrors: every refused deliver:, at its position.
func TestDeliverErrors(t *testing.T) {
	_, ds := load(t, deliverHead+`delivery_profiles:
  broken: { encoding: { container: flac, sample_rate: 44100 } }
syntheses:
  unknown: { voice: v, text: hi, output: a.wav, deliver: telephone }
  twice: { voice: v, text: hi, output: b.wav, deliver: [acx, telephony, acx] }
  ext: { voice: v, text: hi, output: c.wav, deliver: [{ profile: acx, output: out/c.wav }] }
  noext: { voice: v, text: hi, output: d.wav, deliver: [{ profile: telephony, output: out/d }] }
  many: { voice: v, text: hi, output: e.wav, deliver: [acx, podcast, broadcast, telephony, amazon-connect, p1, p2, p3, p4] }
  refused: { voice: v, text: hi, output: f.wav, deliver: broken }
  field: { voice: v, text: hi, output: g.wav, deliver: [{ profile: acx, path: x.mp3 }] }
  noname: { voice: v, text: hi, output: h.wav, deliver: [{ output: x.mp3 }] }
  nested: { voice: v, text: hi, output: i.wav, deliver: [[acx]] }
  each:
    for_each: [a, b]
    voice: v
    text: hi
    output: "${each.key}.wav"
    deliver: [{ profile: acx, output: "out/${each.key}.wav" }]
`, nil, LoadOptions{})
	wantDiags(t, ds,
		`voxform.yaml:5:36: error: delivery profile "broken": encoding.container: "flac" is not one of wav, mp3, mp4, ogg`,
		`voxform.yaml:7:58: error: deliver: unknown delivery profile "telephone" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: broken)`,
		`voxform.yaml:8:73: error: deliver: profile "acx" is delivered twice by this synthesis (first at voxform.yaml:8:57)`,
		`voxform.yaml:9:79: error: deliver: output "out/c.wav" has extension .wav, but profile "acx" delivers mp3 audio (.mp3)`,
		`voxform.yaml:10:87: error: deliver: output "out/d" has no extension, but profile "telephony" delivers wav audio (.wav or .wave)`,
		`voxform.yaml:11:108: error: deliver: unknown delivery profile "p1" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: broken)`,
		`voxform.yaml:11:112: error: deliver: unknown delivery profile "p2" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: broken)`,
		`voxform.yaml:11:116: error: deliver: unknown delivery profile "p3" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: broken)`,
		`voxform.yaml:11:120: error: deliver: entry 9 is past the 8 deliveries a synthesis may have`,
		`voxform.yaml:13:73: error: deliver: unknown field "path"`,
		`voxform.yaml:14:58: error: deliver: this entry names no profile`,
		`voxform.yaml:15:58: error: deliver: want a profile name or {profile, output}`,
		`voxform.yaml:21:40: error: deliver: output "out/a.wav" has extension .wav, but profile "acx" delivers mp3 audio (.mp3)`,
	)
	for _, d := range ds {
		if strings.Contains(d.Message, `"telephone"`) && d.Hint != `did you mean "telephony"?` {
			t.Errorf("unknown profile hint %q", d.Hint)
		}
	}
}

// TestDeliveryProfiles: a custom profile starts from base:'s rules and
// overrides them field by field; loudness target alone passes within 1;
// head/tail as a number; max_duration and max_size in their units; null
// removes a base's rule; no base needs encoding.
func TestDeliveryProfiles(t *testing.T) {
	m, ds := load(t, deliverHead+`delivery_profiles:
  quiet-ivr:
    base: telephony
    loudness: { measure: lufs, target: -20, min: -21.5, max: -19 }
    peak: { measure: true, max: -2 }
    noise_floor: -60
    head: { seconds: 0.5, min: 0.4, max: 0.6, tone: -75 }
    tail: 1.0
    max_duration: 5m
    max_size: 50MB
  book:
    base: acx
    loudness: { target: -19 }
    encoding: { bitrate: 256k, channels: 2 }
    noise_floor: null
    max_duration: 3600
    max_size: 1048576
  web:
    encoding: { container: ogg, sample_rate: 48000, bitrate: 64k, bitrate_mode: vbr }
    loudness: { target: -16 }
    max_size: 2 MiB
  mp4:
    base: podcast
    encoding: { container: mp4 }
  pcm:
    base: acx
    encoding: { container: wav }
    loudness: null
`, nil, LoadOptions{})
	wantDiags(t, ds)
	f := func(v float64) *float64 { return &v }
	tel := deliver.Builtin("telephony")
	want := map[string]*deliver.Profile{
		"quiet-ivr": {Name: "quiet-ivr", Encoding: tel.Encoding,
			Loudness: &deliver.Level{Measure: "lufs", Target: -20, Min: -21.5, Max: -19}, Peak: &deliver.Ceiling{Measure: "true", Max: -2},
			NoiseFloor: f(-60), Head: &deliver.Pad{Seconds: 0.5, Min: 0.4, Max: 0.6, Tone: f(-75)}, Tail: &deliver.Pad{Seconds: 1, Min: 1, Max: 1},
			MaxSeconds: 300, MaxBytes: 50_000_000},
		"web": {Name: "web", Encoding: deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 1, BitrateMode: "vbr", Bitrate: 64000},
			Loudness: &deliver.Level{Measure: "lufs", Target: -16, Min: -17, Max: -15}, MaxBytes: 2 << 20},
	}
	book := deliver.Builtin("acx")
	book.Name, book.Source, book.NoiseFloor, book.MaxSeconds, book.MaxBytes = "book", "", nil, 3600, 1<<20
	book.Loudness = &deliver.Level{Measure: "rms", Target: -19, Min: -20, Max: -18}
	book.Encoding.Bitrate, book.Encoding.Channels = 256000, 2
	want["book"] = book
	mp4 := deliver.Builtin("podcast")
	mp4.Name, mp4.Source = "mp4", ""
	mp4.Encoding.Container, mp4.Encoding.Codec, mp4.Encoding.BitrateMode = "mp4", "aac", "vbr"
	want["mp4"] = mp4
	pcm := deliver.Builtin("acx")
	pcm.Name, pcm.Source, pcm.Loudness = "pcm", "", nil
	pcm.Encoding = deliver.Encoding{Container: "wav", Codec: "pcm_s16le", SampleRate: 44100, Channels: 1}
	want["pcm"] = pcm
	if diff := cmp.Diff(want, m.DeliveryProfiles); diff != "" {
		t.Errorf("profiles (-want +got):\n%s", diff)
	}
	if got := m.DeliveryProfiles["mp4"].Extension(); got != "m4a" {
		t.Errorf("mp4 extension %s", got)
	}
}

// TestDeliveryProfileErrors: each refused profile at the field
// deliver.Validate (or the language) names.
func TestDeliveryProfileErrors(t *testing.T) {
	_, ds := load(t, deliverHead+`delivery_profiles:
  acx: { base: acx }
  nobase: { loudness: { target: -16 } }
  badbase: { base: telephone }
  rate:
    base: telephony
    encoding: { sample_rate: 16000 }
  level:
    base: podcast
    loudness: { target: 3 }
    peak: { measure: dbtp }
  pad:
    base: acx
    head: { seconds: 2, max: 1 }
    tail: { seconds: 1, tone: -40 }
  required:
    encoding: { container: mp3 }
    loudness: { measure: rms }
    peak: { measure: true }
    head: { tone: -80 }
  units:
    base: acx
    encoding: { bitrate: fast }
    max_duration: soon
    max_size: 50 parsecs
  shape:
    base: acx
    loudness: -16
`, nil, LoadOptions{})
	wantDiags(t, ds,
		`voxform.yaml:5:3: error: delivery profile "acx" has the name of a built-in profile`,
		`voxform.yaml:6:3: error: delivery profile "nobase" has no encoding and no base`,
		`voxform.yaml:7:20: error: delivery profile "badbase": base "telephone" is not a built-in profile (acx, amazon-connect, broadcast, podcast, telephony)`,
		`voxform.yaml:10:30: error: delivery profile "rate": encoding.sample_rate: 16000 Hz is not a rate pcm_mulaw takes ([8000])`,
		`voxform.yaml:13:25: error: delivery profile "level": loudness.target: 3 must lie within 2 to 4, inside -70 to 0`,
		`voxform.yaml:14:11: error: delivery profile "level": peak.max: -1 dB is below the loudness range's floor 2`,
		`voxform.yaml:14:22: error: delivery profile "level": peak.measure: "dbtp": want true or sample`,
		`voxform.yaml:17:22: error: delivery profile "pad": head.seconds: 2 s must lie within 2 to 1 s, inside 0 to 60 s`,
		`voxform.yaml:18:31: error: delivery profile "pad": tail.tone: -40 dB is outside -100 to -50 (room tone lies below the silence threshold)`,
		`voxform.yaml:20:15: error: delivery profile "required": encoding.bitrate is required`,
		`voxform.yaml:20:15: error: delivery profile "required": encoding.sample_rate is required`,
		`voxform.yaml:21:15: error: delivery profile "required": loudness.target is required`,
		`voxform.yaml:22:11: error: delivery profile "required": peak.max is required`,
		`voxform.yaml:23:11: error: delivery profile "required": head.seconds is required`,
		`voxform.yaml:26:26: error: bitrate: want a bit rate like "192k" or a number of bits per second, not "fast"`,
		`voxform.yaml:27:19: error: max_duration: want a positive duration like "60s" or "2m", not "soon"`,
		`voxform.yaml:28:15: error: max_size: want a size like "50MB" or a number of bytes, above 0 and at most 1 TB, not "50 parsecs"`,
		`voxform.yaml:31:15: error: delivery profile "shape": loudness: want a map of measure, target, min, max`,
	)
}

// TestDeliveryProfileBound: the profile past MaxDeliveryProfiles is
// refused, naming the bound, and a deliver: naming it is not reported
// again.
func TestDeliveryProfileBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(deliverHead + "delivery_profiles:\n")
	for i := range MaxDeliveryProfiles + 1 {
		fmt.Fprintf(&b, "  p%03d: { base: acx }\n", i)
	}
	b.WriteString("syntheses:\n  s: { voice: v, text: hi, output: a.wav, deliver: p064 }\n")
	m, ds := load(t, b.String(), nil, LoadOptions{})
	wantDiags(t, ds, `voxform.yaml:69:3: error: delivery profile "p064" is past the 64 delivery profiles a manifest may declare`)
	if len(m.DeliveryProfiles) != MaxDeliveryProfiles {
		t.Errorf("%d profiles", len(m.DeliveryProfiles))
	}
}
