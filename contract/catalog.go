package contract

import (
	"encoding/json"
	"slices"
	"time"
)

// Model is a synthesis model of the catalog (speech-synthesis.md, "What
// the service does" and "Synthesis request").
type Model struct {
	Name   string   `json:"name"`
	Voices []string `json:"voices"` // empty for vc-v1
	// VoiceLanguages maps a voice to the language it was made for, where
	// that is known (the live tts-v2.5 voices).
	VoiceLanguages   map[string]string `json:"voice_languages,omitempty"`
	Languages        []string          `json:"languages"` // allowed language values
	DefaultLanguage  string            `json:"default_language,omitempty"`
	LanguageRequired bool              `json:"language_required"`
	VoiceRequired    bool              `json:"voice_required"`
	Language         bool              `json:"language"`        // accepts language
	Speed            bool              `json:"speed"`           // accepts speed
	RendersTags      bool              `json:"renders_tags"`    // renders audio tags
	NeedsEmbedding   bool              `json:"needs_embedding"` // vc-v1
	// MaxChars is the longest text one request takes, in billed
	// characters (see DefaultMaxChars); a longer text is split into
	// chunks, each its own request.
	MaxChars int    `json:"max_chars"`
	Note     string `json:"note,omitempty"`
}

// DefaultMaxChars is the longest text voxform sends in one synthesis
// request: 2,000 characters. The documents state no maximum (SPEC
// section 8a); the emulator refuses over 5,000 by default. 2,000 keeps
// every request well under that, and a chunk near a minute of speech, so
// that an edit re-synthesizes little. service.max_text_chars overrides it
// (1 to MaxTextCharsLimit).
const DefaultMaxChars = 2000

// MaxTextCharsLimit is the largest service.max_text_chars a manifest may
// set: 100,000 characters, the longest chapter voxform is measured with.
const MaxTextCharsLimit = 100_000

// RecognitionAPI holds what the recognition document says of one API.
type RecognitionAPI struct {
	Name           string        `json:"name"`
	Languages      []string      `json:"languages"`
	MaxLanguages   int           `json:"max_languages"` // codes per request
	ITN            bool          `json:"itn"`           // format, itn_native_numerals
	Diarization    bool          `json:"diarization"`
	Denoise        bool          `json:"denoise"`
	MultiChannel   bool          `json:"multi_channel"`
	URLs           bool          `json:"urls"` // public https inputs
	Callback       bool          `json:"callback"`
	Models         []string      `json:"models,omitempty"`
	InputFormats   []string      `json:"input_formats"`  // file extensions
	OutputFormats  []string      `json:"output_formats"` // transcript renderings
	MaxDuration    time.Duration `json:"-"`
	DurationStrict bool          `json:"duration_strict,omitempty"` // "less than"
	IdealDuration  time.Duration `json:"-"`
	// MaxFileBytes is the largest input file the API takes; MaxFileNote
	// says which documented limit it comes from.
	MaxFileBytes  int64  `json:"max_file_bytes,omitempty"`
	MaxFileNote   string `json:"max_file_note,omitempty"`
	MinSampleRate int    `json:"min_sample_rate,omitempty"`
	MaxSampleRate int    `json:"max_sample_rate,omitempty"`
	SampleRates   []int  `json:"sample_rates,omitempty"` // realtime send rates
	MaxSpeakers   int    `json:"max_speakers,omitempty"`
}

// Limit is one documented limit, for display.
type Limit struct {
	Item  string `json:"item"`
	Value string `json:"value"`
}

// Catalog is what the service documents: models, voices, languages, tags,
// formats and limits. The manifest's catalog: block extends it.
type Catalog struct {
	Models          []*Model                   `json:"models"`
	Tags            []string                   `json:"tags"`
	Containers      []*ContainerInfo           `json:"containers"`
	Encodings       []string                   `json:"encodings"`
	Aliases         []Alias                    `json:"encoding_aliases"`
	SampleRates     []int                      `json:"sample_rates"`
	MinSampleRate   int                        `json:"min_sample_rate"`
	MaxSampleRate   int                        `json:"max_sample_rate"`
	MaxChannels     int                        `json:"max_channels"`
	MaxSampleWidth  int                        `json:"max_sample_width"`
	Bitrates        []string                   `json:"bitrates"`
	Defaults        AudioConfig                `json:"audio_config_defaults"`
	SpeedMin        float64                    `json:"speed_min"`
	SpeedMax        float64                    `json:"speed_max"`
	Transports      []string                   `json:"transports"`
	RefAudioFormats []string                   `json:"reference_audio_formats"`
	RefAudioMin     time.Duration              `json:"-"`
	RefAudioMax     time.Duration              `json:"-"`
	Recognition     map[string]*RecognitionAPI `json:"recognition"`
	Limits          []Limit                    `json:"limits"`
}

var tts25Languages = []string{"auto", "hi-IN", "en-IN", "ta-IN", "te-IN", "kn-IN", "ml-IN", "mr-IN", "pa-IN", "bn-IN", "gu-IN", "hi-en"}

var sttLanguages = []string{"bn-IN", "en-IN", "gu-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "pa-IN", "ta-IN", "te-IN"}

// Builtin returns a fresh copy of the documented catalog.
func Builtin() *Catalog { return BuiltinFor(ProfileDocumented) }

// BuiltinFor returns a fresh copy of the catalog of profile p.
func BuiltinFor(p Profile) *Catalog {
	c := &Catalog{
		Models: []*Model{
			{Name: "tts-v2.0", Voices: []string{"Pranav", "Kaveri", "Shubhra", "Deepak"}, Languages: []string{"IND-IN"},
				DefaultLanguage: "IND-IN", Language: true, VoiceRequired: true, Note: "English and Hindi; announced as to be deprecated"},
			{Name: "tts-v2.5", Languages: slices.Clone(tts25Languages),
				LanguageRequired: true, Language: true, VoiceRequired: true, Speed: true, Note: "recommended; 42 voices, each made for one language"},
			{Name: "tts-v3.0", Voices: []string{"Shivani", "Avinash"}, Languages: []string{"hi-IN", "en-IN"},
				Language: true, VoiceRequired: true, Speed: true, RendersTags: true, Note: "the only model that renders audio tags"},
			{Name: "vc-v1", NeedsEmbedding: true, Note: "speaks in a cloned voice given by a speaker embedding; sends no voice name"},
		},
		Tags: []string{"laugh", "giggle", "sigh", "exhales", "sniffles", "yawns", "coughs", "clears throat",
			"whispers", "shouting", "excited", "slow", "pauses"},
		Containers:    slices.Clone(Containers),
		Encodings:     slices.Clone(Encodings),
		Aliases:       slices.Clone(Aliases),
		SampleRates:   slices.Clone(SampleRates),
		MinSampleRate: MinSampleRate, MaxSampleRate: MaxSampleRate, MaxChannels: MaxChannels, MaxSampleWidth: MaxSampleWidth,
		Bitrates: slices.Clone(Bitrates),
		Defaults: AudioConfig{SampleRate: DefaultSampleRate, NumChannels: DefaultChannels, SampleWidth: DefaultWidth,
			Encoding: DefaultEncoding, Container: DefaultContainer, Bitrate: DefaultBitrate},
		SpeedMin: SpeedMin, SpeedMax: SpeedMax,
		Transports:      []string{TransportREST, TransportSSE, TransportWebSocket},
		RefAudioFormats: []string{"wav", "mp3"},
		RefAudioMin:     5 * time.Second, RefAudioMax: 30 * time.Second,
		Recognition: builtinRecognition(),
	}
	c.Limits = builtinLimits()
	for _, m := range c.Models {
		m.MaxChars = DefaultMaxChars
	}
	v25 := c.Model("tts-v2.5")
	v25.VoiceLanguages = map[string]string{}
	for _, l := range tts25Voices {
		for _, v := range l.voices {
			v25.Voices = append(v25.Voices, v)
			v25.VoiceLanguages[v] = l.language
		}
	}
	if p == ProfileLive {
		live(c)
	}
	return c
}

// tts25Voices are tts-v2.5's voices by language, as the service owner's
// client names them (timbre-v2.5). The documents quote a catalog of 42 or
// 44 voices and show only five of them (Nalini, Kaveri, Deepak, Girish,
// Poorvi, all here), so both profiles know the whole list.
var tts25Voices = []struct {
	language string
	voices   []string
}{
	{"hi-IN", []string{"Nalini", "Bhavna", "Yashvi", "Urmila", "Jwala", "Chitra", "Ambuja", "Deepak", "Roopesh", "Vikrant", "Hemraj", "Jalaj", "Omkar"}},
	{"en-IN", []string{"Kaveri", "Trupti", "Devika", "Pranav", "Shlok", "Girish"}},
	{"ta-IN", []string{"Asmita", "Trisha", "Brinda", "Vedika", "Noopur"}},
	{"te-IN", []string{"Suhana", "Lehara", "Lavanya", "Yukti", "Varuni"}},
	{"kn-IN", []string{"Saanvi", "Kavin"}},
	{"ml-IN", []string{"Reshma", "Riyaan"}},
	{"mr-IN", []string{"Zahira", "Ishaan"}},
	{"bn-IN", []string{"Kirra", "Dhruva"}},
	{"gu-IN", []string{"Falak", "Veera"}},
	{"pa-IN", []string{"Mehuli", "Zayan"}},
	{"hi-en", []string{"Poorvi"}},
}

// live turns the documented catalog into the live service's: tts-v2.0
// takes neither language nor speed (both apply to timbre-v2.5 only);
// realtime recognition takes other sample rates, and ITN.
func live(c *Catalog) {
	c.Model("tts-v2.5").Note = "timbre-v2.5 on the wire; 42 voices, each made for one language"
	rt := c.Recognition[APIRealtime]
	rt.SampleRates = ProfileLive.RealtimeSampleRates()
	rt.ITN = true // x-format: transcribe and itn_native_numerals headers
	v20 := c.Model("tts-v2.0")
	v20.Languages, v20.DefaultLanguage, v20.Language = nil, "", false
	v20.Note = "timbre-v2.0 on the wire; English and Hindi; takes no language"
	for _, name := range []string{"tts-v3.0", "vc-v1"} {
		c.Model(name).Note += " (documented; the live service's own client does not name it)"
	}
}

// VoicesOf lists the voices of model m made for language, in catalog order.
func (m *Model) VoicesOf(language string) []string {
	var out []string
	for _, v := range m.Voices {
		if m.VoiceLanguages[v] == language {
			out = append(out, v)
		}
	}
	return out
}

func builtinRecognition() map[string]*RecognitionAPI {
	return map[string]*RecognitionAPI{
		APIREST: {Name: APIREST, Languages: slices.Clone(sttLanguages), MaxLanguages: 1, ITN: true,
			InputFormats:  []string{"wav", "mp3", "ogg", "flac", "aac", "m4a"},
			OutputFormats: []string{"json", "txt"},
			MaxDuration:   60 * time.Second, IdealDuration: 30 * time.Second, MinSampleRate: 8000, MaxSampleRate: 44100},
		APIRealtime: {Name: APIRealtime, Languages: slices.Clone(sttLanguages), MaxLanguages: 1,
			InputFormats:  []string{"wav", "mp3"},
			OutputFormats: []string{"json", "txt", "srt", "vtt"}, SampleRates: ProfileDocumented.RealtimeSampleRates()},
		APIBatchLegacy: {Name: APIBatchLegacy, Languages: slices.Clone(sttLanguages), MaxLanguages: 1,
			ITN: true, MultiChannel: true,
			InputFormats:  []string{"aac", "wav", "flac", "m4a", "ogg", "opus"},
			OutputFormats: []string{"json", "txt", "srt", "vtt"},
			MaxDuration:   time.Hour, DurationStrict: true,
			MaxFileBytes: LegacyMaxFileBytes, MaxFileNote: "80 MB per call, form fields included"},
		APIBatch: {Name: APIBatch,
			Languages:    []string{"bn-IN", "bn-BD", "en-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "ta-IN", "te-IN"},
			MaxLanguages: 3, Diarization: true, Denoise: true, MultiChannel: true, URLs: true, Callback: true,
			Models:        []string{DefaultBatchModel},
			InputFormats:  []string{"wav", "mp3", "mp4", "flac", "ogg", "opus", "m4a", "aac", "webm", "amr"},
			OutputFormats: []string{"json", "txt", "srt", "vtt"},
			MaxDuration:   4 * time.Hour, MaxSpeakers: 2,
			MaxFileBytes: MaxJobFileBytes, MaxFileNote: "10 MB per uploaded file"},
	}
}

func builtinLimits() []Limit {
	return []Limit{
		{"speed", "0.85 to 1.15, or slow (0.85), medium (1.0), fast (1.15); tts-v2.5 and later"},
		{"sample_rate", "8000 to 48000 Hz; supported 8000, 16000, 22050, 24000, 44100, 48000"},
		{"num_channels", "1 to 8"},
		{"sample_width", "1 to 4 bytes"},
		{"mulaw, alaw", "sample rate forced to 8000 Hz"},
		{"bitrate", "32k to 192k; mp3 only"},
		{"OGG on the streaming endpoint", "delivered as one chunk"},
		{"reference audio for embeddings", "WAV or MP3, ideally 5 to 30 s"},
		{"synthesis billing", "characters of text, tags included"},
		{"rest recognition", "files up to 60 s (ideal 30 s), 8 to 44.1 kHz"},
		{"realtime recognition", "PCM 16-bit mono at 16 or 8 kHz, frames of 1024 bytes"},
		{"batch_legacy recognition", "files under 1 h; 10 files and 80 MB per call; poll every 60 s or slower"},
		{"batch recognition", "10 MB per uploaded file; 4 h per file; 100 files per job; up to 3 language codes"},
		{"diarization", "num_speakers at most 2 (batch)"},
	}
}

// Model returns a model by name, or nil.
func (c *Catalog) Model(name string) *Model {
	for _, m := range c.Models {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// ModelNames lists the models.
func (c *Catalog) ModelNames() []string {
	out := make([]string, len(c.Models))
	for i, m := range c.Models {
		out[i] = m.Name
	}
	return out
}

// Extension is what a manifest's catalog: block adds: extra models (like
// tts-v2.5), voices and languages per model, and recognition language
// codes per API.
type Extension struct {
	Models               []string
	Voices               map[string][]string
	Languages            map[string][]string
	RecognitionLanguages map[string][]string
}

// Extend returns the catalog with ext added.
func (c *Catalog) Extend(ext Extension) *Catalog {
	for _, name := range ext.Models {
		if c.Model(name) == nil {
			base := *c.Model(extensionBase)
			base.Name, base.Voices, base.Note = name, nil, "declared in the manifest's catalog: block"
			base.Languages = slices.Clone(base.Languages)
			c.Models = append(c.Models, &base)
		}
	}
	for model, voices := range ext.Voices {
		if m := c.Model(model); m != nil {
			m.Voices = appendNew(m.Voices, voices)
		}
	}
	for model, langs := range ext.Languages {
		if m := c.Model(model); m != nil {
			m.Languages = appendNew(m.Languages, langs)
		}
	}
	for api, langs := range ext.RecognitionLanguages {
		if r := c.Recognition[api]; r != nil {
			r.Languages = appendNew(r.Languages, langs)
		}
	}
	return c
}

func appendNew(list, more []string) []string {
	for _, s := range more {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// MarshalJSON writes durations as seconds.
func (r *RecognitionAPI) MarshalJSON() ([]byte, error) {
	type plain RecognitionAPI
	return json.Marshal(struct {
		*plain
		MaxSeconds   float64 `json:"max_duration_seconds,omitempty"`
		IdealSeconds float64 `json:"ideal_duration_seconds,omitempty"`
	}{(*plain)(r), r.MaxDuration.Seconds(), r.IdealDuration.Seconds()})
}

// MarshalJSON writes durations as seconds.
func (c *Catalog) MarshalJSON() ([]byte, error) {
	type plain Catalog
	return json.Marshal(struct {
		*plain
		RefMin float64 `json:"reference_audio_ideal_min_seconds"`
		RefMax float64 `json:"reference_audio_ideal_max_seconds"`
	}{(*plain)(c), c.RefAudioMin.Seconds(), c.RefAudioMax.Seconds()})
}

// Speed (speech-synthesis.md, Synthesis request): a number from SpeedMin
// to SpeedMax, or one of the words of SpeedNames.
const (
	SpeedMin = 0.85
	SpeedMax = 1.15
)

// SpeedNames maps the service's speed words to numbers.
var SpeedNames = map[string]float64{"slow": SpeedMin, "medium": 1.0, "fast": SpeedMax}

// SpeedWords are the speed words in order, for messages.
var SpeedWords = []string{"slow", "medium", "fast"}

// builtins are the profiles' catalogs, never extended (for SynthesisModel).
var builtins = map[Profile]*Catalog{ProfileDocumented: BuiltinFor(ProfileDocumented), ProfileLive: BuiltinFor(ProfileLive)}

// SynthesisModel returns the rules of the synthesis model name (canonical
// or not) in this profile: a documented model's or, for a model the
// manifest's catalog: block declares, those of tts-v2.5, as Extend gives it.
func (p Profile) SynthesisModel(name string) *Model {
	cat := builtins[p]
	if cat == nil {
		cat = builtins[DefaultProfile]
	}
	if m := cat.Model(CanonicalModel(name)); m != nil {
		return m
	}
	declared := *cat.Model(extensionBase)
	declared.Name, declared.Voices, declared.Languages, declared.VoiceLanguages = name, nil, nil, nil
	return &declared
}

// extensionBase is the model whose rules a model declared in the
// manifest's catalog: block follows.
const extensionBase = "tts-v2.5"

// Request is the synthesis request this model is sent in profile p
// (speech-synthesis.md, "Synthesis request", and the live facts): the
// model's name on p's wire, the voice and language for the models that
// take them, the model's default language when none is given, the speed
// for the models that take one (1.0 unless given), nothing a cloned voice
// (vc-v1) does not take; audio, the audio format as p spells it
// (p.Wire), which the request shares.
func (m *Model) Request(p Profile, text, voice, language string, speed *float64, audio *AudioConfig) SynthesisRequest {
	w := SynthesisRequest{Text: text, Model: p.WireModel(m.Name), AudioConfig: audio}
	if !m.NeedsEmbedding {
		w.Voice = voice
		if m.Language {
			w.Language = language
			if w.Language == "" {
				w.Language = m.DefaultLanguage
			}
		}
	}
	if m.Speed {
		w.Speed = 1.0
		if speed != nil {
			w.Speed = *speed
		}
	}
	return w
}
