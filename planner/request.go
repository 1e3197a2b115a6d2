package planner

import (
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// BilledCharacters is what the service bills for text: its Unicode code
// points, audio tags and their angle brackets included (speech-synthesis.md,
// audio tags rule 6 and Limits).
func BilledCharacters(text string) int64 { return int64(utf8.RuneCountInString(text)) }

// synthesisWire is the synthesis request the executor sends in profile p
// for text (s.Text with its lexicon applied): the manifest's effective
// values as the model's rules in p have them sent (contract.Model.Request).
func (b *builder) synthesisWire(s *manifest.Synthesis, text string, p contract.Profile) contract.SynthesisRequest {
	format, _ := contract.Resolve(s.AudioConfig)
	key := wireFormat{p, format}
	audio, ok := b.configs[key]
	if !ok {
		audio = p.Wire(format)
		b.configs[key] = audio
	}
	return p.SynthesisModel(s.Model).Request(p, text, s.VoiceName, s.Language, s.Speed, audio)
}

// wireFormat is a format as a profile sends it: the builder's requests
// share one wire audio_config for each (read-only).
type wireFormat struct {
	profile contract.Profile
	format  contract.Format
}

// synthesisRequest is the canonical form of a synthesis request, which
// the fingerprint covers: the fields of the request as the documented
// profile sends it, the audio format in its canonical form, and the voice's
// embedding identified by content.
func synthesisRequest(w *contract.SynthesisRequest, embedding map[string]any) map[string]any {
	format, _ := contract.Resolve(w.AudioConfig)
	return requestInto(make(map[string]any, 8), w, embedding, format.Canonical())
}

// requestInto fills req (empty) as synthesisRequest does, with audio the
// canonical form of w's audio_config.
func requestInto(req map[string]any, w *contract.SynthesisRequest, embedding, audio map[string]any) map[string]any {
	req["model"], req["text"], req["audio_config"] = w.Model, w.Text, audio
	model := contract.ProfileDocumented.SynthesisModel(w.Model)
	if !model.NeedsEmbedding {
		req["voice"] = w.Voice
	}
	if w.Language != "" {
		req["language"] = w.Language
	}
	if model.Speed {
		req["speed"] = w.Speed
	}
	if embedding != nil {
		req["speaker_embedding"] = embedding
	}
	return req
}

// embeddingRequest is the canonical request of an embedding: the content of
// the reference recording (its path is not part of it).
func embeddingRequest(refSHA string) map[string]any {
	return map[string]any{"reference_audio": map[string]any{"sha256": refSHA}}
}

// transcriptionWire is what one transcription sends, by API
// (speech-recognition.md, per endpoint), with the documented defaults
// filled in: format verbatim, the realtime rate, the batch mode;
// num_speakers only with diarization.
func transcriptionWire(t *manifest.Transcription) *contract.TranscriptionRequest {
	w := &contract.TranscriptionRequest{API: t.API, Model: t.Model, LanguageCode: t.LanguageCode, Input: t.Input, IsURL: t.IsURL}
	if t.IsURL {
		w.Input, w.SignedURL = t.Key, t.Input
	}
	switch t.API {
	case manifest.APIREST, manifest.APIBatchLegacy, manifest.APIRealtime:
		w.Format = t.Format
		if w.Format == "" {
			w.Format = contract.FormatVerbatim
		}
		if w.Format == contract.FormatTranscribe {
			w.ITNNativeNumerals = t.ITNNativeNumerals
		}
		if t.API == manifest.APIBatchLegacy {
			w.IsMultiChannel = t.IsMultiChannel
		}
	case manifest.APIBatch:
		w.Mode = "transcribe"
		w.WithDiarization = t.WithDiarization
		if t.WithDiarization {
			w.NumSpeakers = t.NumSpeakers
		}
		w.IsMultiChannel = t.IsMultiChannel
		w.WithDenoise = t.WithDenoise
		w.CallbackURL = t.CallbackURL
	}
	if t.API == manifest.APIRealtime {
		w.SampleRate = t.SampleRate
		if w.SampleRate == 0 {
			w.SampleRate = contract.RealtimeDefaultRate
		}
	}
	return w
}

// transcriptionRequest is the canonical form of one transcription request,
// which the fingerprint covers: the fields the API sends and the source's
// content hash, or its URL without a pre-signed query (key). Output formats
// and the callback URL are not part of it.
func transcriptionRequest(w *contract.TranscriptionRequest, key, srcSHA string) map[string]any {
	req := map[string]any{
		"api":           w.API,
		"model":         w.Model,
		"language_code": w.LanguageCode,
	}
	if w.IsURL {
		req["source"] = map[string]any{"url": key}
	} else {
		req["source"] = map[string]any{"sha256": srcSHA}
	}
	switch w.API {
	case manifest.APIREST, manifest.APIBatchLegacy:
		req["format"] = w.Format
		if w.Format == contract.FormatTranscribe {
			req["itn_native_numerals"] = w.ITNNativeNumerals
		}
		if w.API == manifest.APIBatchLegacy {
			req["is_multi_channel"] = w.IsMultiChannel
		}
	case manifest.APIBatch:
		req["mode"] = w.Mode
		req["with_diarization"] = w.WithDiarization
		if w.WithDiarization {
			req["num_speakers"] = w.NumSpeakers
		}
		req["is_multi_channel"] = w.IsMultiChannel
		req["with_denoise"] = w.WithDenoise != nil && *w.WithDenoise
	case manifest.APIRealtime:
		req["sample_rate"] = w.SampleRate
		// ITN is the live service's only (a header); verbatim, the
		// default, is not written, so a realtime request made before
		// realtime took a format keeps its fingerprint.
		if w.Format == contract.FormatTranscribe {
			req["format"] = w.Format
			req["itn_native_numerals"] = w.ITNNativeNumerals
		}
	}
	return req
}
