package contract

// SynthesisRequest is the JSON body of every synthesis transport
// (speech-synthesis.md, "Synthesis request"), as the plan holds it and the
// executor sends it. The speaker embedding of a vc-v1 synthesis is not part
// of it: the plan names the embedding by content, and the executor adds the
// object read from the embedding's output when the synthesis runs.
type SynthesisRequest struct {
	Text  string `json:"text"`
	Model string `json:"model"`
	// Voice is required by every model but vc-v1, which never sends it.
	Voice string `json:"voice,omitempty"`
	// Language is required by tts-v2.5; tts-v2.0 sends IND-IN; vc-v1 none.
	Language string `json:"language,omitempty"`
	// Speed (0.85 to 1.15) is sent to the models that take it, 1.0 when
	// the manifest sets none.
	Speed float64 `json:"speed,omitempty"`
	// AudioConfig is the resolved format, every field the container uses.
	AudioConfig *AudioConfig `json:"audio_config"`
}

// EmbeddingRequest is the embeddings upload: one reference recording.
type EmbeddingRequest struct {
	// ReferenceAudio is the recording's path, relative to the manifest
	// directory; its content hash is in the plan's sources.
	ReferenceAudio string `json:"reference_audio"`
}

// TranscriptionRequest is what one transcription sends, by API
// (speech-recognition.md): the form fields of a REST or older batch call,
// the parameters of a realtime session, or the config of a batch job.
type TranscriptionRequest struct {
	API          string `json:"api"`
	LanguageCode string `json:"language_code"`
	// Format and ITNNativeNumerals: rest and batch_legacy, and realtime
	// with the live profile (its x-format and itn_native_numerals headers).
	Format            string `json:"format,omitempty"`
	ITNNativeNumerals bool   `json:"itn_native_numerals,omitempty"`
	// Model, Mode, WithDiarization, NumSpeakers, WithDenoise and
	// CallbackURL: batch. IsMultiChannel: batch and batch_legacy.
	Model           string `json:"model,omitempty"`
	Mode            string `json:"mode,omitempty"`
	WithDiarization bool   `json:"with_diarization,omitempty"`
	NumSpeakers     int    `json:"num_speakers,omitempty"`
	IsMultiChannel  bool   `json:"is_multi_channel,omitempty"`
	WithDenoise     *bool  `json:"with_denoise,omitempty"`
	CallbackURL     string `json:"callback_url,omitempty"`
	// SampleRate: realtime (16000 or 8000).
	SampleRate int `json:"sample_rate,omitempty"`
	// Input is the local input's path (relative to the manifest directory)
	// or the source URL of a batch job, without a pre-signed query.
	Input string `json:"input"`
	IsURL bool   `json:"is_url,omitempty"`
	// SignedURL is the source URL with its pre-signed query, as sent. The
	// query is a credential: it never enters a plan file or the state, and
	// is bound again from the manifest when a saved plan is applied.
	SignedURL string `json:"-"`
}

// SourceURL is the URL a batch job is given for a URL input.
func (w *TranscriptionRequest) SourceURL() string {
	if w.SignedURL != "" {
		return w.SignedURL
	}
	return w.Input
}

// Synthesis transports.
const (
	TransportREST      = "rest"
	TransportSSE       = "sse"
	TransportWebSocket = "websocket"
)

// DefaultBatchModel is the batch jobs model (speech-recognition.md, Versioning).
const DefaultBatchModel = "stt-v2.5"

// Recognition API names.
const (
	APIREST        = "rest"
	APIRealtime    = "realtime"
	APIBatch       = "batch"
	APIBatchLegacy = "batch_legacy"
)

// Transcription formats of rest and batch_legacy.
const (
	FormatVerbatim   = "verbatim"
	FormatTranscribe = "transcribe"
)
