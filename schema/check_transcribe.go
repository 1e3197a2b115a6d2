package schema

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
)

var apiNames = []string{manifest.APIREST, manifest.APIRealtime, manifest.APIBatch, manifest.APIBatchLegacy}

func (c *checker) checkTranscriptions() {
	valid := map[string]bool{}
	for _, t := range c.m.TranscriptionSettings {
		valid[t.Name] = c.checkTranscriptionConfig(t)
	}
	if len(c.m.Transcriptions) == 0 {
		return
	}
	root, err := owned.Open(c.m.Dir)
	if err != nil {
		c.ds.Errorf(c.m.Transcriptions[0].InputPos, "%v", err)
		return
	}
	defer root.Close()
	for _, t := range c.m.Transcriptions {
		if api := c.cat.Recognition[t.API]; api != nil && valid[t.Name] {
			c.checkInput(root, t, api)
			c.checkRedactedInput(root, t)
		}
	}
}

// checkTranscriptionConfig checks the settings of a transcription block
// against its API. It returns false when the API is unknown.
// conformance: STT-001, STT-033, STT-034, RT-001, RT-012, OB-001, OB-036, BJ-001, BJ-002, BJ-004,
// BJ-006, BJ-009, BJ-010, BJ-020, BJ-068, BJ-090, ERR-028, ERR-029
func (c *checker) checkTranscriptionConfig(t *manifest.Transcription) bool {
	f := func(n string) manifest.Pos { return manifest.FieldPos(t.Fields, n, t.Pos) }
	api := c.cat.Recognition[t.API]
	if api == nil {
		if t.API == "" {
			c.ds.Errorf(t.Pos, "transcription %q has no api", t.Name).WithHint("api: rest, realtime, batch or batch_legacy")
		} else {
			c.unknownName(f("api"), "api", t.API, apiNames, "")
		}
		return false
	}
	not := func(field, what string) {
		if _, set := t.Fields[field]; set {
			c.ds.Errorf(f(field), "%s is not supported by api %s", what, t.API).WithHint("%s", supportedBy(c.cat, field))
		}
	}
	c.checkLanguageCodes(t, api)
	if _, set := t.Fields["model"]; set && !slices.Contains(api.Models, t.Model) {
		if len(api.Models) == 0 {
			c.ds.Errorf(f("model"), "model is not sent by api %s", t.API).WithHint("remove model:; only api batch takes one (stt-v2.5)")
		} else {
			c.unknownName(f("model"), "model", t.Model, api.Models, "")
		}
	}
	if !api.ITN {
		not("format", "format (ITN)")
		not("itn_native_numerals", "itn_native_numerals (ITN)")
	} else {
		if t.Format != "" && t.Format != "verbatim" && t.Format != "transcribe" {
			c.unknownName(f("format"), "format", t.Format, []string{"verbatim", "transcribe"}, "")
		}
		if t.ITNNativeNumerals && t.Format != "transcribe" {
			c.ds.Warnf(f("itn_native_numerals"), "itn_native_numerals has no effect without format: transcribe")
		}
	}
	c.checkDiarization(t, api)
	if !api.MultiChannel {
		not("is_multi_channel", "is_multi_channel")
	}
	if !api.Denoise {
		not("with_denoise", "with_denoise")
	}
	if !api.Callback {
		not("callback_url", "callback_url")
	} else if t.CallbackURL != "" {
		// http only on the loopback interface (tests and the emulator), as
		// for base URLs and input URLs.
		if !contract.SecureOrLoopback(t.CallbackURL, "https", "http") {
			c.ds.Errorf(f("callback_url"), "callback_url %q must be an https URL", t.CallbackURL)
		}
	}
	if len(api.SampleRates) == 0 {
		not("sample_rate", "sample_rate")
	} else if err := c.profile.CheckRealtimeRate(t.SampleRate); err != nil {
		c.ds.Errorf(f("sample_rate"), "%v", err)
	}
	if _, set := t.Fields["urls"]; set && !api.URLs {
		c.ds.Errorf(f("urls"), "urls are not supported by api %s", t.API).WithHint("only api batch fetches public URLs; download the files and list them under inputs:")
	}
	if t.OutputDir == "" {
		c.ds.Errorf(t.Pos, "transcription %q has no output_dir", t.Name)
	}
	c.checkFormats(t, api)
	c.checkRedaction(t)
	return true
}

// checkLanguageCodes checks language_code against the API's table.
func (c *checker) checkLanguageCodes(t *manifest.Transcription, api *contract.RecognitionAPI) {
	pos := manifest.FieldPos(t.Fields, "language_code", t.Pos)
	if strings.TrimSpace(t.LanguageCode) == "" {
		c.ds.Errorf(pos, "transcription %q needs a language_code", t.Name).
			WithHint("codes for api %s: %s", t.API, listNames(api.Languages))
		return
	}
	codes := strings.Split(t.LanguageCode, ",")
	if len(codes) > api.MaxLanguages {
		if api.MaxLanguages == 1 {
			c.ds.Errorf(pos, "language_code %q lists %d codes; api %s takes one", t.LanguageCode, len(codes), t.API).
				WithHint("only api batch identifies the language among up to 3 codes")
		} else {
			c.ds.Errorf(pos, "language_code %q lists %d codes; at most %d are allowed", t.LanguageCode, len(codes), api.MaxLanguages)
		}
	}
	seen := map[string]bool{}
	for _, code := range codes {
		code = strings.TrimSpace(code)
		switch {
		case code == "":
			c.ds.Errorf(pos, "language_code %q has an empty code", t.LanguageCode)
		case seen[code]:
			c.ds.Errorf(pos, "language_code %q lists %s twice", t.LanguageCode, code)
		case !slices.Contains(api.Languages, code):
			d := c.ds.Errorf(pos, "language code %q is not supported by api %s", code, t.API)
			if others := apisWithLanguage(c.cat, code); len(others) > 0 {
				d.WithHint("%s is supported by api %s", code, strings.Join(others, ", "))
			} else if sg := c.sg.Suggest(code, api.Languages); sg != "" {
				d.WithHint("did you mean %q?", sg)
			} else {
				d.WithHint("codes for api %s: %s", t.API, listNames(api.Languages))
			}
		}
		seen[code] = true
	}
}

func apisWithLanguage(cat *contract.Catalog, code string) []string {
	var out []string
	for _, name := range apiNames {
		if slices.Contains(cat.Recognition[name].Languages, code) {
			out = append(out, name)
		}
	}
	return out
}

// checkDiarization: batch only (the older batch has no field for it),
// num_speakers required and at most 2.
func (c *checker) checkDiarization(t *manifest.Transcription, api *contract.RecognitionAPI) {
	f := func(n string) manifest.Pos { return manifest.FieldPos(t.Fields, n, t.Pos) }
	_, setD := t.Fields["with_diarization"]
	_, setN := t.Fields["num_speakers"]
	if !api.Diarization {
		if setD && t.WithDiarization {
			d := c.ds.Errorf(f("with_diarization"), "diarization is not supported by api %s", t.API)
			if t.API == manifest.APIBatchLegacy {
				d.WithHint("the older batch API documents no diarization field; use api batch")
			} else {
				d.WithHint("use api batch for speaker diarization")
			}
		}
		if setN {
			c.ds.Errorf(f("num_speakers"), "num_speakers is not supported by api %s", t.API)
		}
		return
	}
	switch {
	case t.WithDiarization && !setN:
		c.ds.Errorf(f("with_diarization"), "with_diarization needs num_speakers (1 or 2)")
	case setN && !t.WithDiarization:
		c.ds.Errorf(f("num_speakers"), "num_speakers %d needs with_diarization: true", t.NumSpeakers)
	case setN && (t.NumSpeakers < 1 || t.NumSpeakers > api.MaxSpeakers):
		c.ds.Errorf(f("num_speakers"), "num_speakers %d is out of range 1 to %d", t.NumSpeakers, api.MaxSpeakers)
	}
}

func (c *checker) checkFormats(t *manifest.Transcription, api *contract.RecognitionAPI) {
	pos := manifest.FieldPos(t.Fields, "formats", t.Pos)
	seen := map[string]bool{}
	for _, fm := range t.Formats {
		switch {
		case seen[fm]:
			c.ds.Errorf(pos, "formats lists %s twice", fm)
		case !slices.Contains([]string{"json", "txt", "srt", "vtt"}, fm):
			c.unknownName(pos, "format", fm, []string{"json", "txt", "srt", "vtt"}, "")
		case !slices.Contains(api.OutputFormats, fm):
			c.ds.Errorf(pos, "format %s needs segment timings, which api %s does not return", fm, t.API).
				WithHint("api %s writes %s", t.API, strings.Join(api.OutputFormats, ", "))
		}
		seen[fm] = true
	}
}

func supportedBy(cat *contract.Catalog, field string) string {
	var apis []string
	for _, name := range apiNames {
		a := cat.Recognition[name]
		ok := map[string]bool{
			"format": a.ITN, "itn_native_numerals": a.ITN, "is_multi_channel": a.MultiChannel,
			"with_denoise": a.Denoise, "callback_url": a.Callback, "sample_rate": len(a.SampleRates) > 0,
		}[field]
		if ok {
			apis = append(apis, name)
		}
	}
	return fmt.Sprintf("%s is for api %s", field, strings.Join(apis, ", "))
}

// checkInput checks one local input file, opened through root as apply
// opens it (inside the manifest directory or input_dirs, a regular file):
// format per API, size and duration limits, and the REST sample rate range.
// conformance: STT-030, STT-031, STT-032, OB-032, OB-037, BJ-095, BJ-098, BJ-101, ERR-016, ERR-021, ERR-035
func (c *checker) checkInput(root *owned.Root, t *manifest.Transcription, api *contract.RecognitionAPI) {
	if t.IsURL {
		return
	}
	pos := t.InputPos
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(t.Input)), ".")
	if !slices.Contains(api.InputFormats, ext) {
		c.ds.Errorf(pos, "input %q: api %s does not accept .%s files", t.Input, t.API, ext).
			WithHint("api %s accepts %s", t.API, strings.Join(api.InputFormats, ", "))
		return
	}
	in, err := root.OpenInputWithin(filepath.FromSlash(t.Input), t.InputDirs)
	if err != nil {
		d := c.ds.Errorf(pos, "input %q %s", t.Input, inputProblem(err, "does not exist or is not a file"))
		if owned.IsOutside(err) {
			d.WithHint("inputs must really lie inside the manifest directory; name a shared recordings directory the link leads to under input_dirs:")
		}
		return
	}
	defer in.Close()
	full := owned.HandlePath(in)
	st, err := in.Stat()
	if err != nil {
		c.ds.Errorf(pos, "input %q cannot be read: %v", t.Input, causeOf(err))
		return
	}
	if st.Size() == 0 {
		c.ds.Errorf(pos, "input %q is empty", t.Input)
		return
	}
	if api.MaxFileBytes > 0 && st.Size() > api.MaxFileBytes {
		d := c.ds.Errorf(pos, "input %q is %s bytes; api %s takes files up to %s bytes (%s)",
			t.Input, numfmt.Thousands(st.Size()), t.API, numfmt.Thousands(api.MaxFileBytes), api.MaxFileNote)
		if api.URLs {
			d.WithHint("split the recording, or give it under urls: (a public https URL has no size cap)")
		} else {
			d.WithHint("split the recording, or use api batch")
		}
	}
	info, ok := c.probe(full, t.Input, pos)
	if !ok {
		return
	}
	d := info.Duration
	switch {
	case api.MaxDuration > 0 && api.DurationStrict && d >= api.MaxDuration:
		c.ds.Errorf(pos, "input %q is %s long; api %s takes files under %s", t.Input, roundDuration(d), t.API, roundDuration(api.MaxDuration))
	case api.MaxDuration > 0 && !api.DurationStrict && d > api.MaxDuration:
		c.ds.Errorf(pos, "input %q is %s long; api %s takes files up to %s", t.Input, roundDuration(d), t.API, roundDuration(api.MaxDuration))
	case api.IdealDuration > 0 && d > api.IdealDuration:
		c.ds.Warnf(pos, "input %q is %s long; api %s works best up to %s", t.Input, roundDuration(d), t.API, roundDuration(api.IdealDuration))
	}
	if api.MinSampleRate > 0 && info.SampleRate > 0 && (info.SampleRate < api.MinSampleRate || info.SampleRate > api.MaxSampleRate) {
		c.ds.Errorf(pos, "input %q is sampled at %d Hz; api %s takes %d to %d Hz", t.Input, info.SampleRate, t.API, api.MinSampleRate, api.MaxSampleRate)
	}
}
