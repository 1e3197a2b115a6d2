package planner

import (
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// Model names with special rules (speech-synthesis.md, models table).
const (
	modelTTSv20 = "tts-v2.0"
	modelVC     = "vc-v1"
)

// BilledCharacters is what the service bills for text: its Unicode code
// points, audio tags and their angle brackets included (speech-synthesis.md,
// audio tags rule 6 and Limits).
func BilledCharacters(text string) int64 { return int64(utf8.RuneCountInString(text)) }

// speedApplies reports whether a model takes the speed parameter: every
// model from tts-v2.5 on (and catalog extensions, treated like it), not the
// older tts-v2.0 nor vc-v1.
func speedApplies(model string) bool { return model != modelTTSv20 && model != modelVC }

// synthesisRequest is the canonical synthesis request: the effective values
// the service receives, with the voice's embedding identified by content.
func synthesisRequest(s *manifest.Synthesis, embedding map[string]any) map[string]any {
	req := map[string]any{
		"model":        s.Model,
		"text":         s.Text,
		"audio_config": EffectiveAudioConfig(s.AudioConfig),
	}
	if s.Model != modelVC {
		req["voice"] = s.VoiceName
	}
	lang := s.Language
	if lang == "" && s.Model == modelTTSv20 {
		lang = "IND-IN"
	}
	if lang != "" && s.Model != modelVC { // vc-v1 takes no language
		req["language"] = lang
	}
	if speedApplies(s.Model) {
		speed := 1.0
		if s.Speed != nil {
			speed = *s.Speed
		}
		req["speed"] = speed
	}
	if embedding != nil {
		req["speaker_embedding"] = embedding
	}
	return req
}

// EffectiveAudioConfig returns the audio_config the service applies, in
// the canonical form the fingerprint covers (contract.Resolve): two
// spellings of the same output have the same fingerprint.
func EffectiveAudioConfig(ac *manifest.AudioConfig) map[string]any {
	f, _ := contract.Resolve(ac)
	return f.Canonical()
}

// embeddingRequest is the canonical request of an embedding: the content of
// the reference recording (its path is not part of it).
func embeddingRequest(refSHA string) map[string]any {
	return map[string]any{"reference_audio": map[string]any{"sha256": refSHA}}
}

// transcriptionRequest is the canonical request of one transcription input:
// the fields the chosen API sends (speech-recognition.md, per endpoint) and
// the source's content hash, or its URL. Output formats are not part of it.
func transcriptionRequest(t *manifest.Transcription, srcSHA string) map[string]any {
	req := map[string]any{
		"api":           t.API,
		"model":         t.Model,
		"language_code": t.LanguageCode,
	}
	if t.IsURL {
		req["source"] = map[string]any{"url": t.Key} // without a pre-signed query
	} else {
		req["source"] = map[string]any{"sha256": srcSHA}
	}
	switch t.API {
	case manifest.APIREST, manifest.APIBatchLegacy:
		format := t.Format
		if format == "" {
			format = "verbatim"
		}
		req["format"] = format
		if format == "transcribe" {
			req["itn_native_numerals"] = t.ITNNativeNumerals
		}
		if t.API == manifest.APIBatchLegacy {
			req["is_multi_channel"] = t.IsMultiChannel
		}
	case manifest.APIBatch:
		req["mode"] = "transcribe"
		req["with_diarization"] = t.WithDiarization
		if t.WithDiarization {
			req["num_speakers"] = t.NumSpeakers
		}
		req["is_multi_channel"] = t.IsMultiChannel
		req["with_denoise"] = t.WithDenoise != nil && *t.WithDenoise
	case manifest.APIRealtime:
		rate := t.SampleRate
		if rate == 0 {
			rate = contract.RealtimeDefaultRate
		}
		req["sample_rate"] = rate
	}
	return req
}
