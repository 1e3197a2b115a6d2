package speechapi

import "github.com/voxform/voxform/contract"

// The request a plan holds (contract.TranscriptionRequest) as each
// recognition API's call takes it: one mapping per API, so that what was
// planned is what is sent.

// TranscribeOptionsOf is the REST form of w.
func TranscribeOptionsOf(w *contract.TranscriptionRequest) TranscribeOptions {
	return TranscribeOptions{LanguageCode: w.LanguageCode, Format: w.Format, NativeNumerals: w.ITNNativeNumerals}
}

// RealtimeOptionsOf is the realtime session of w (its format and
// native numerals reach the live service only).
func RealtimeOptionsOf(w *contract.TranscriptionRequest) RealtimeOptions {
	return RealtimeOptions{LanguageCode: w.LanguageCode, SampleRate: w.SampleRate, Format: w.Format, NativeNumerals: w.ITNNativeNumerals}
}

// JobConfigOf is the batch job config of w.
func JobConfigOf(w *contract.TranscriptionRequest) JobConfig {
	cfg := JobConfig{
		Model: w.Model, LanguageCode: w.LanguageCode, Mode: w.Mode,
		WithDiarization: w.WithDiarization, IsMultiChannel: w.IsMultiChannel, WithDenoise: w.WithDenoise,
	}
	if w.WithDiarization {
		n := w.NumSpeakers
		cfg.NumSpeakers = &n
	}
	return cfg
}

// LegacyOptionsOf is the older batch form of w.
func LegacyOptionsOf(w *contract.TranscriptionRequest) LegacyOptions {
	return LegacyOptions{LanguageCode: w.LanguageCode, MultiChannel: w.IsMultiChannel, Format: w.Format, NativeNumerals: w.ITNNativeNumerals}
}
