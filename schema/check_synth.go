package schema

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

func (c *checker) checkSyntheses() {
	voices := map[string]*manifest.Voice{}
	for _, v := range c.m.Voices {
		voices[v.Name] = v
	}
	for _, s := range c.m.Syntheses {
		c.checkSynthesis(s, voices[s.Voice])
	}
}

// checkSynthesis checks one synthesis instance. Messages name values, not
// instances, so that a problem shared by every row of a for_each is
// reported once at its position.
func (c *checker) checkSynthesis(s *manifest.Synthesis, v *manifest.Voice) {
	f := func(n string) manifest.Pos { return manifest.FieldPos(s.Fields, n, s.Pos) }
	// The instances of a block share its fields: what depends on them
	// alone is checked for the first.
	if c.once(onceKey{what: "block", pos: s.Pos, value: s.Name}) {
		if _, set := s.Fields["voice"]; !set {
			c.ds.Errorf(s.Pos, "synthesis %q has no voice", s.Name).WithHint("name one of the voices: entries")
		}
		_, hasText := s.Fields["text"]
		_, hasFile := s.Fields["text_file"]
		switch {
		case !hasText && !hasFile:
			c.ds.Errorf(s.Pos, "synthesis %q has no text", s.Name).WithHint("set text: or text_file:")
		case hasText && hasFile:
			c.ds.Errorf(f("text_file"), "synthesis %q sets both text and text_file", s.Name).WithHint("keep one of them")
		}
		if _, set := s.Fields["output"]; !set {
			c.ds.Errorf(s.Pos, "synthesis %q has no output", s.Name).WithHint("set output: to the file to write")
		}
	}
	if !slices.Contains(c.cat.Transports, s.Transport) && c.once(onceKey{what: "transport", pos: f("transport"), value: s.Transport}) {
		c.unknownName(f("transport"), "transport", s.Transport, c.cat.Transports, "")
	}
	ac := c.audioConfigOnce(s)
	if len(s.Details().Deliver) > 0 && ac != nil {
		c.checkDeliverable(s, "deliver", f("deliver"))
	}
	c.listenOnce(s)
	c.checkRecorded(s)
	model := c.model(s.Model)
	if v == nil || model == nil {
		return // reported with the voice
	}
	if v.Fields != nil {
		if p := f("language"); s.Language != "" && p != manifest.FieldPos(v.Fields, "language", v.Pos) &&
			c.once(onceKey{what: "language", pos: p, value: s.Language, model: model}) {
			c.checkLanguage(model, s.Language, p)
		}
		if p := f("speed"); s.Speed != nil && p != manifest.FieldPos(v.Fields, "speed", v.Pos) &&
			c.once(onceKey{what: "speed", pos: p, value: strconv.FormatFloat(*s.Speed, 'g', -1, 64), model: model}) {
			c.checkSpeed(model, *s.Speed, p)
		}
	}
	c.checkVoiceLanguage(s, model)
	c.listenScript(s)
	if s.Language == "" && model.LanguageRequired && c.once(onceKey{what: "needs language", pos: s.Pos, value: s.Name + "\x00" + v.Name, model: model}) {
		c.ds.Errorf(s.Pos, "synthesis %q needs a language: model %s requires one", s.Name, c.modelName(model.Name)).
			WithHint("set language: on voice %q or on the synthesis (%s)", v.Name, listNames(model.Languages))
	}
	_, hasText := s.Fields["text"]
	_, hasFile := s.Fields["text_file"]
	if hasText && !hasFile || s.Details().TextFile != "" {
		c.checkText(s, model)
	}
	if s.Transport == manifest.TransportWebSocket && ac != nil && !ac.Raw {
		c.ds.Errorf(f("transport"), "transport websocket delivers raw PCM, which voxform cannot turn into %s", ac.Name).
			WithHint("use container wav, raw, mulaw or alaw with websocket, or transport rest or sse for %s", ac.Name)
	}
	if s.Transport == manifest.TransportSSE && ac != nil && ac.Name == contract.Ogg {
		c.ds.Warnf(f("transport"), "ogg over sse arrives as one chunk at the end (no incremental delivery)")
	}
	if ac != nil && s.Output != "" {
		ext := strings.ToLower(path.Ext(s.Output))
		if exts := ac.Extensions; ext != "" && !slices.Contains(exts, ext) {
			c.ds.Warnf(f("output"), "output %q has extension %s but the audio is %s", s.Output, ext, ac.Name).
				WithHint("name it with %s", exts[0])
		}
	}
}

// onceKey identifies a check of a synthesis whose findings are the same
// for every instance it is the same for: what is checked, where, with
// which value and model.
type onceKey struct {
	what  string
	pos   manifest.Pos
	value string
	model *contract.Model
}

// once reports whether a check is made for the first time: the thousands
// of instances of a for_each block would repeat its findings.
func (c *checker) once(k onceKey) bool {
	if c.done[k] {
		return false
	}
	c.done[k] = true
	return true
}

// acKey identifies what checkAudioConfig's findings for a synthesis
// depend on: its audio_config, which the instances of a block share when
// it holds no reference, and its block.
type acKey struct {
	ac    *manifest.AudioConfig
	block string
	pos   manifest.Pos
}

// acResult is what checkAudioConfig gave for an acKey.
type acResult struct {
	container *contract.ContainerInfo
	ac        *manifest.AudioConfig
}

// audioConfigOnce is checkAudioConfig once per block and audio_config:
// the other instances would give the same findings at the same positions.
func (c *checker) audioConfigOnce(s *manifest.Synthesis) *contract.ContainerInfo {
	key := acKey{s.AudioConfig, s.Name, s.Pos}
	if r, ok := c.acDone[key]; ok {
		s.AudioConfig = r.ac
		return r.container
	}
	k := c.checkAudioConfig(s)
	c.acDone[key] = acResult{k, s.AudioConfig}
	return k
}

// model is c.cat.Model, looked up once per name: the catalog may hold a
// thousand models, and every synthesis names one.
func (c *checker) model(name string) *contract.Model {
	m, ok := c.models[name]
	if !ok {
		m = c.cat.Model(name)
		c.models[name] = m
	}
	return m
}

// checkAudioConfig checks audio_config by the contract's rules and
// returns the effective container, or nil when it is invalid. mulaw and
// alaw force 8000 Hz: the synthesis's AudioConfig is updated to show it.
// conformance: TTS-019, TTS-020, TTS-022, TTS-025, TTS-027, TTS-028, TTS-030, TTS-032, TTS-033,
// TTS-040, TTS-041, TTS-042, TTS-043, TTS-044, TTS-045
func (c *checker) checkAudioConfig(s *manifest.Synthesis) *contract.ContainerInfo {
	a := s.AudioConfig
	f := func(n string) manifest.Pos {
		return manifest.FieldPos(s.Fields, "audio_config."+n, manifest.FieldPos(s.Fields, "audio_config", s.Pos))
	}
	// A field written as 0 is not the same as a field left out (which
	// takes the default).
	for n, bounds := range map[string]string{
		"sample_rate":  "is not a supported rate (" + contract.SampleRateList() + ")",
		"num_channels": fmt.Sprintf("is out of range 1 to %d", contract.MaxChannels),
		"sample_width": fmt.Sprintf("is out of range 1 to %d bytes", contract.MaxSampleWidth),
	} {
		if _, set := s.Fields["audio_config."+n]; set && a != nil && zeroField(a, n) {
			c.ds.Errorf(f(n), "%s 0 %s", n, bounds)
		}
	}
	format, problems := contract.Resolve(a)
	ok := true
	for _, p := range problems {
		switch {
		case p.Choices != nil:
			c.unknownName(f(p.Field), p.Field, p.Value, p.Choices, "")
		case p.Severity == contract.Warning:
			d := c.ds.Warnf(f(p.Field), "%s", p.Message)
			if p.Hint != "" {
				d.WithHint("%s", p.Hint)
			}
		default:
			d := c.ds.Errorf(f(p.Field), "%s", p.Message)
			if p.Hint != "" {
				d.WithHint("%s", p.Hint)
			}
		}
		if p.Severity == contract.Error && (p.Field == "encoding" || p.Field == "container") {
			ok = false
		}
	}
	if !ok {
		return nil
	}
	k := contract.Container(format.Container)
	if k.ForcedRate != 0 && a != nil && a.SampleRate != k.ForcedRate {
		s.AudioConfig = c.forced(a, k.ForcedRate)
	}
	return k
}

func zeroField(a *manifest.AudioConfig, name string) bool {
	switch name {
	case "sample_rate":
		return a.SampleRate == 0
	case "num_channels":
		return a.NumChannels == 0
	}
	return a.SampleWidth == 0
}

// forced returns a copy of a with the sample rate a container forces; the
// copy is shared by every instance that shares a.
func (c *checker) forced(a *manifest.AudioConfig, rate int) *manifest.AudioConfig {
	if f, ok := c.forcedAC[a]; ok {
		return f
	}
	f := *a
	f.SampleRate = rate
	c.forcedAC[a] = &f
	return &f
}

// checkVoiceLanguage warns when a voice speaks a language it was not made
// for (where the catalog knows: the live tts-v2.5 voices), naming the voices
// of that language.
func (c *checker) checkVoiceLanguage(s *manifest.Synthesis, model *contract.Model) {
	made, known := model.VoiceLanguages[s.VoiceName]
	if !known || s.Language == "" || s.Language == made || s.Language == "auto" || !slices.Contains(model.Languages, s.Language) {
		return // an unknown language is an error of its own
	}
	p := manifest.FieldPos(s.Fields, "language", s.Pos)
	if !c.once(onceKey{what: "voice language", pos: p, value: s.VoiceName + "\x00" + s.Language, model: model}) {
		return
	}
	d := c.ds.Warnf(p, "voice %s of %s was made for %s, not %s", s.VoiceName, c.modelName(model.Name), made, s.Language)
	if others := model.VoicesOf(s.Language); len(others) > 0 {
		d.WithHint("voices made for %s: %s", s.Language, listNames(others))
	} else {
		d.WithHint("no %s voice is made for %s", c.modelName(model.Name), s.Language)
	}
}
