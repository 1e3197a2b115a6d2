package manifest

import (
	"fmt"
	"github.com/voxform/voxform/deliver"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/rare"
	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/narration"
)

// Pos is a position in a manifest file. Line and Col are 1-based; a zero Pos
// means "no position" (for example a value that came from a -var flag).
type Pos struct {
	File string // path relative to the manifest directory
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Kind is the kind of a resource; it is the first part of its address.
type Kind string

// The resource kinds of SPEC section 4.
const (
	KindVoice         Kind = "voice"
	KindEmbedding     Kind = "embedding"
	KindSynthesis     Kind = "synthesis"
	KindTranscription Kind = "transcription"
	// KindPackage is a chaptered book made of syntheses (packages:).
	KindPackage Kind = "package"
)

// Transports of a synthesis (SPEC section 2).
const (
	TransportREST      = contract.TransportREST
	TransportSSE       = contract.TransportSSE
	TransportWebSocket = contract.TransportWebSocket
)

// Recognition APIs of a transcription (SPEC section 2).
const (
	APIREST        = contract.APIREST
	APIRealtime    = contract.APIRealtime
	APIBatch       = contract.APIBatch
	APIBatchLegacy = contract.APIBatchLegacy
)

// Manifest is a loaded and fully expanded manifest directory. Slices are
// sorted by address, so iteration order is deterministic.
type Manifest struct {
	// Dir is the absolute manifest directory; every relative path in the
	// manifest and in the resources below is relative to it.
	Dir string
	// Files are the manifest files loaded, relative to Dir, sorted.
	Files []string
	// Hash is a SHA-256 (hex) over the names and contents of Files and of
	// every for_each data file and -var-file; a saved plan binds it.
	Hash string

	Version        int
	Service        Service
	Cache          Cache
	Backend        Backend
	Catalog        CatalogExtension
	Variables      map[string]any
	Budget         *Budget
	Loudness       *Loudness
	Voices         []*Voice
	Embeddings     []*Embedding
	Syntheses      []*Synthesis
	Transcriptions []*Transcription
	// Packages are the packages: block's books, in name order.
	Packages []*Package
	// DeliveryProfiles are the delivery_profiles: block's custom
	// profiles, by name (each resolved: a base: built-in's rules with the
	// block's own over them).
	DeliveryProfiles map[string]*deliver.Profile

	// TranscriptionSettings holds one Transcription per transcriptions:
	// block with its settings but no input (Key, Input, Outputs empty), so
	// that a block's settings are checked even when it matches no files.
	TranscriptionSettings []*Transcription

	// DataFiles are the for_each data files read, relative to Dir, sorted.
	DataFiles []string
	// TextFiles are the text_file and lexicon files read, relative to
	// Dir, sorted.
	TextFiles []string
	// VarFiles are the -var-file files read, as given.
	VarFiles []string
	// VersionPos is the position of the version: value.
	VersionPos Pos
}

// Service is the manifest's service: block. Zero values mean "not set".
type Service struct {
	// Profile is the service spoken to: contract.ProfileLive (the default)
	// or contract.ProfileDocumented. An unknown value is kept as written
	// for validation to name.
	Profile           contract.Profile
	BaseURL           string
	WSBaseURL         string
	APIKeyEnv         string // default VOXFORM_API_KEY
	Timeout           time.Duration
	Retries           int
	RequestsPerSecond float64
	Parallelism       int
	// RealtimePace is how fast realtime recognition sends audio, as a
	// multiple of real time; contract.PaceUnlimited for "unlimited"; 0
	// (not set) for the profile's pace.
	RealtimePace float64
	// MaxTextChars is the longest text one synthesis request takes, in
	// billed characters: a longer text is split into chunks (0, not set:
	// the model's contract.Model.MaxChars).
	MaxTextChars int
	// Paths overrides endpoint paths by endpoint name (for example
	// "stt_realtime": "/stt/v3/stream"); the live service has been seen to
	// differ from the documents (SPEC section 7).
	Paths map[string]string
	Pos   Pos
	// Fields holds the position of each field that was set ("paths.NAME"
	// for a path override).
	Fields map[string]Pos
}

// Cache is the manifest's cache: block, where outputs are kept by
// fingerprint so that no request is paid for twice. The environment
// (VOXFORM_CACHE_DIR, VOXFORM_CACHE_REMOTE, VOXFORM_CACHE_ENDPOINT,
// VOXFORM_CACHE_REGION) wins over it. Credentials are never here: they
// come from the standard AWS environment variables or profile.
type Cache struct {
	// Dir is the local cache directory; empty is the user's cache
	// directory. A relative one is relative to the manifest directory.
	Dir string
	// Remote is the shared cache: s3://bucket/prefix, or file:///dir.
	Remote string
	// Endpoint is the S3 endpoint (empty: AWS); Region its region.
	Endpoint string
	Region   string
	Pos      Pos
	// Fields holds the position of each field that was set; a field set by
	// the environment points at the variable (File is its name).
	Fields map[string]Pos
}

// Backend is the manifest's backend: block, where the state is kept: the
// local file beside the manifests (the default) or a PostgreSQL database
// shared by a team. The environment (VOXFORM_BACKEND, VOXFORM_WORKSPACE)
// wins over it. The connection string is never here: it is read from
// the environment variable ConnStrEnv names.
type Backend struct {
	// Type is BackendLocal or BackendPG; an unknown value is kept as
	// written for validation to name.
	Type string
	// ConnStrEnv names the variable holding the connection string
	// (default VOXFORM_PG).
	ConnStrEnv string
	// Schema and Workspace say where in the database (defaults: voxform,
	// default); Lease is how long the lock outlives a holder that died
	// (0: the default).
	Schema    string
	Workspace string
	Lease     time.Duration
	Pos       Pos
	// Fields holds the position of each field that was set; a field set by
	// the environment points at the variable (File is its name).
	Fields map[string]Pos
}

// Backend types.
const (
	BackendLocal = "local"
	BackendPG    = "pg"
)

// CatalogExtension is the manifest's catalog: block, which extends the
// built-in catalog (contract.Builtin).
type CatalogExtension struct {
	// Voices maps a model to extra voice names.
	Voices map[string][]string
	// Languages maps a model to extra language values.
	Languages map[string][]string
	// Models lists extra synthesis model names (treated like tts-v2.5).
	Models []string
	// RecognitionLanguages maps a recognition API (rest, realtime, batch,
	// batch_legacy) to extra language codes.
	RecognitionLanguages map[string][]string
	Pos                  Pos
	// Fields holds the position of each key: "voices.MODEL",
	// "languages.MODEL", "recognition_languages.API", "models".
	Fields map[string]Pos
}

// Budget refuses a plan that costs more (SPEC section 5). Nil fields are unlimited.
type Budget struct {
	MaxCharacters   *int64
	MaxAudioSeconds *float64
	Pos             Pos
	Fields          map[string]Pos
}

// Loudness is what 'voxform verify -loudness' holds the audio outputs to.
// Nil fields take the command's defaults (its flags override both).
type Loudness struct {
	// MaxDeviation is how far, in LU, an output's integrated loudness may
	// lie from the project's median.
	MaxDeviation *float64
	// MaxTruePeak is the highest true peak allowed, in dBTP.
	MaxTruePeak *float64
	Pos         Pos
	Fields      map[string]Pos
}

// Listen is a synthesis's listening check (listen:): each output (each
// chunk of a chunked one) is transcribed and compared with the text sent.
// listen: true is all defaults; a map sets some fields, the rest keep
// their defaults; listen: false (or none) is no check. The instances of
// a block share one value, as they share an audio_config: it is
// read-only. The schema checks its bounds.
type Listen struct {
	// Thresholds are the limits of the comparison (max_cer, max_wer,
	// max_run, max_missing_tail, noise_words); listen.DefaultThresholds
	// for those not set.
	Thresholds listen.Thresholds
	// Regenerate is how many more takes a failing prompt or chunk gets
	// (0 to MaxRegenerate; default 0).
	Regenerate int
	// LanguageCode, when set, is the recognition language the check is
	// made in, instead of the one derived from the synthesis language
	// (contract.ListenLanguage).
	LanguageCode string
	// Seams are the limits at the chunk boundaries of a joined output.
	Seams Seams
	// Hash identifies what a recorded transcript is judged under: the
	// thresholds and the seam limits. Not regenerate, which changes the
	// work, not the verdict; not language_code, which changes the
	// transcript itself: the language belongs to the check's request, so
	// its fingerprint (the audio's hash and the request) differs and the
	// check is made again rather than judged again. A record judged under
	// another hash is judged again, for free, from its recorded text.
	Hash   string
	Pos    Pos
	Fields map[string]Pos // "max_cer", "seams.max_gap", ...
}

// Seams are the limits at each chunk boundary of a joined output
// (listen.seams).
type Seams struct {
	// MaxStep is the largest loudness step, in LU, from one chunk to the
	// next (default 3).
	MaxStep float64
	// MaxGap and MinGap bound the silence at a boundary (defaults 2 s
	// and 0).
	MaxGap, MinGap time.Duration
}

// Listen bounds: regenerate takes at most MaxRegenerate more takes; a
// seam gap limit is at most MaxSeamGap.
const (
	MaxRegenerate = 5
	MaxSeamGap    = 60 * time.Second
)

// DefaultSeams are the seam limits listen.seams starts from.
func DefaultSeams() Seams { return Seams{MaxStep: 3, MaxGap: 2 * time.Second} }

// AudioConfig is the service's audio_config object, as the manifest sets it.
// Zero values mean "not set"; the service documents the defaults.
type AudioConfig = contract.AudioConfig

// CheckMaxDeviation and CheckMaxTruePeak bound the loudness limits, from
// the manifest's loudness: block or verify's flags alike.
func CheckMaxDeviation(v float64) error {
	if !(v > 0 && v <= 100) {
		return fmt.Errorf("%g must be above 0 and at most 100 (LU)", v)
	}
	return nil
}

// CheckMaxTruePeak: see CheckMaxDeviation.
func CheckMaxTruePeak(v float64) error {
	if !(v >= -100 && v <= 20) {
		return fmt.Errorf("%g must be within -100..20 (dBTP)", v)
	}
	return nil
}

// Voice is a voices: entry: a model and how to speak. A voice makes no API
// call of its own; syntheses refer to it by name.
type Voice struct {
	Name     string
	Address  string // voice.NAME
	Model    string
	Voice    string // voice name sent to the service; empty for vc-v1
	Language string
	// Speed is the numeric speed (slow/medium/fast already mapped to
	// 0.85/1.0/1.15); nil when not set.
	Speed *float64
	// Embedding names an embeddings: entry (vc-v1).
	Embedding string
	// EmbeddingFile is a path to an embedding JSON file (vc-v1), relative to Dir.
	EmbeddingFile string
	Pos           Pos
	// Fields holds the position of each field that was set, by field name.
	Fields map[string]Pos
}

// Embedding is an embeddings: entry: a reference recording turned into a
// speaker embedding written to Output.
type Embedding struct {
	Name           string
	Address        string // embedding.NAME
	ReferenceAudio string // relative to Dir
	Output         string // relative to Dir
	Consent        string
	Pos            Pos
	Fields         map[string]Pos
}

// Synthesis is one expanded synthesis: a for_each block yields one per key.
// Its fields are the effective values after defaults, the voice's values and
// interpolation.
type Synthesis struct {
	Name   string // block name
	Key    string // for_each key; empty when the block has no for_each
	HasKey bool   // true for for_each instances (Key may be any string)
	// KeyPos is where the for_each key is written (a data file row, or the
	// inline list or map); zero without for_each.
	KeyPos  Pos
	Address string // synthesis.NAME or synthesis.NAME["KEY"]

	Voice       string // name of the voices: entry
	Model       string // the voice's model
	VoiceName   string // the voice's service voice name; empty for vc-v1
	Text        string
	Language    string   // effective: synthesis override, else the voice's
	Speed       *float64 // effective: synthesis override, else the voice's
	AudioConfig *AudioConfig
	Transport   string // rest (default), sse or websocket
	Output      string // relative to Dir
	// TextSpans say where each part of Text came from (a manifest literal
	// or an interpolated value), so that problems inside the text can be
	// reported at their exact position.
	TextSpans []Span
	// details are the fields most syntheses leave empty, out of line:
	// read them with Details, change them with Edit.
	details rare.Of[SynthesisDetails]

	Pos Pos
	// Fields holds the position of each field that was set ("audio_config.
	// sample_rate" for a sub-field; language and speed point at the voice
	// when inherited from it). Instances of one block share the map: it
	// is read-only.
	Fields map[string]Pos
}

// SynthesisDetails are the fields of a Synthesis that most syntheses leave
// empty (a prompt library of 100,000 sets none of them), held out of line.
type SynthesisDetails struct {
	// Cues, when set, are the cue files written beside Output.
	Cues *Cues
	// Listen, when set, is the listening check of the outputs.
	Listen *Listen
	// Deliver are the delivered forms of the audio (deliver:), in the
	// order written; each is mastered from the audio, free of charge.
	Deliver []Delivery
	// Lifecycle is the synthesis's lifecycle: block (or that of
	// defaults.synthesis); the zero value when neither sets one.
	Lifecycle Lifecycle
	// Recorded, when set, is the human recording that is the output
	// (recorded:), made with no service call.
	Recorded *Recorded

	// EmbeddingName and EmbeddingFile are the voice's (vc-v1) embedding
	// source: an embeddings: entry or a file, relative to Dir.
	EmbeddingName string
	EmbeddingFile string
	// TextFile is the text_file the text was read from, relative to Dir
	// (empty when text: holds it); TextSpans then point into that file.
	TextFile string
	// LexiconFile is the pronunciation lexicon, relative to Dir (empty:
	// none); Lexicon is it, loaded. The lexicon is applied to Text before
	// the request is formed (planner), so Text stays as written.
	LexiconFile string
	Lexicon     *narration.Lexicon
}

// isZero says whether every field of d is empty, without reflect's
// allocation (TestSynthesisDetailsIsZero checks it knows every field).
func (d *SynthesisDetails) isZero() bool {
	return d.Cues == nil && d.Listen == nil && len(d.Deliver) == 0 && d.Lifecycle == (Lifecycle{}) &&
		d.Recorded == nil && d.EmbeddingName == "" && d.EmbeddingFile == "" && d.TextFile == "" &&
		d.LexiconFile == "" && d.Lexicon == nil
}

// Details returns a copy of s's rarely set fields; writing to it changes
// nothing (use Edit).
func (s *Synthesis) Details() SynthesisDetails { return s.details.Get() }

// Edit returns s's rarely set fields to change: a copy that s now holds
// alone (another synthesis sharing them keeps its own).
func (s *Synthesis) Edit() *SynthesisDetails { return s.details.Edit() }

// WithDetails makes s hold d (none when d is empty) and returns s.
func (s *Synthesis) WithDetails(d SynthesisDetails) *Synthesis {
	s.details.Set(d, d.isZero())
	return s
}

// Lifecycle is how a synthesis's recorded output may change (lifecycle:).
type Lifecycle struct {
	// KeepApproved turns a replace of a resource whose approval holds
	// into a no-op, shown as pinned (approved), unless -replace names it.
	KeepApproved bool
	// PreventDestroy refuses a plan that would delete the resource.
	PreventDestroy bool
}

// Delivery is one delivered form of a synthesis's audio: the audio
// mastered to a profile (deliver.Profile) and written to Output.
type Delivery struct {
	// Profile is resolved (a built-in or a delivery_profiles: entry);
	// Profile.Name is the name the manifest gives it. Shared by the
	// instances of a block: read-only.
	Profile *deliver.Profile
	// Output is where the delivered file is written, relative to Dir.
	Output string
	// Pos is where the delivery is declared: its output: value when
	// written, else the profile's name.
	Pos Pos
}

// Package is a chaptered book made of syntheses (a packages: entry): each
// chapter's audio mastered to Profile, joined in order, and written as
// an M4B with chapter atoms, an MP3 with ID3v2 CHAP and CTOC frames,
// and a Podcasting 2.0 chapters file, as declared.
type Package struct {
	Name    string
	Address string // package.NAME
	// Chapters in order; each names a synthesis by its address.
	Chapters []Chapter
	Meta     BookMeta
	// Cover is the cover image (JPEG or PNG), relative to Dir; empty:
	// none.
	Cover string
	// Profile is how each chapter is mastered before the join (loudness,
	// peak, head and tail, rate and channels); its encoding's container
	// and codec are not used: each output has its own.
	Profile *deliver.Profile
	// M4B and MP3 are the book files, nil when not declared.
	M4B *BookFile
	MP3 *BookFile
	// ChaptersJSON is the Podcasting 2.0 chapters file, relative to Dir;
	// empty: not written.
	ChaptersJSON string
	Pos          Pos
	Fields       map[string]Pos
}

// Chapter is one chapter of a Package.
type Chapter struct {
	Synthesis string // the synthesis's address
	Title     string
	Pos       Pos
}

// BookMeta is what a package's files say about the book.
type BookMeta struct {
	Title    string
	Author   string
	Narrator string
	Year     int    // 0: not set
	Language string // BCP 47, e.g. hi-IN
}

// BookFile is one file of a package: where it goes and its bit rate
// (bits per second; AAC for M4B, CBR MP3 for MP3).
type BookFile struct {
	Output  string
	Bitrate int
}

// Cues are the cue files of a synthesis: where each chunk starts in its
// audio and what it says (narration.JSONCues, narration.VTTChapters).
// Each path is an output of the synthesis, relative to Dir; empty: not
// written.
type Cues struct {
	JSON string
	VTT  string
}

// Transcription is one expanded transcription input: a block yields one per
// input file or URL.
type Transcription struct {
	Name    string // block name
	Key     string // the input: path relative to Dir, or the URL
	Address string // transcription.NAME["KEY"]

	Input string // local path relative to Dir, or a URL
	IsURL bool
	API   string // rest, realtime, batch or batch_legacy

	Model             string
	LanguageCode      string // one code, or up to 3 comma-separated (batch)
	Format            string // verbatim or transcribe (rest, batch_legacy)
	ITNNativeNumerals bool
	WithDiarization   bool
	NumSpeakers       int
	IsMultiChannel    bool
	WithDenoise       *bool
	CallbackURL       string
	// SampleRate is the rate realtime input is resampled to: 16000 or 8000.
	SampleRate int

	// Pattern is the inputs: glob (or urls: entry) that produced Input.
	Pattern string
	// InputPos is where Pattern is written.
	InputPos Pos
	// InputDirs are the absolute directories outside the manifest
	// directory that the block names (input_dirs) as places its inputs
	// may really be, reached through a symbolic link; any other input
	// must really lie inside the manifest directory.
	InputDirs []string

	OutputDir string   // relative to Dir
	Formats   []string // json, txt, srt, vtt
	// Outputs maps each format to its output path, relative to Dir.
	Outputs map[string]string

	// Redact is the redaction every output of the block gets (nil: none).
	// It is shared by the block's inputs: read-only.
	Redact *Redaction
	// RedactedAudio is where the redacted copy of the recording is
	// written, relative to Dir: "" unless Redact.Audio asks for one.
	RedactedAudio string
	// Channels names the speaker of each channel of a multi-channel
	// recording (channels:), by zero-based channel index: segments are
	// labelled with the role instead of "Speaker N". Shared: read-only.
	Channels map[int]string

	Pos    Pos
	Fields map[string]Pos
}

// Redaction is a transcription's redact: block: the kinds of personal
// data replaced in every output, as written (redact.NewPolicy checks and
// orders them), whether the unredacted transcript is kept locally, and the
// redacted audio asked for ("", "silence" or "beep").
type Redaction struct {
	Kinds          []string
	KeepUnredacted bool
	Audio          string

	Pos    Pos
	Fields map[string]Pos
}

// Span maps a byte range of an interpolated string to its source: bytes
// [Offset, next span's Offset) came from Pos onwards. When Exact is true
// the source holds those bytes verbatim, so the position of a byte inside
// the span is Pos advanced by the preceding bytes of the span.
type Span struct {
	Offset int
	Pos    Pos
	Exact  bool
}

// PosAt returns the best known source position of byte offset off of a
// string described by spans.
func PosAt(spans []Span, s string, off int) Pos {
	var cur *Span
	for i := range spans {
		if spans[i].Offset <= off {
			cur = &spans[i]
		}
	}
	if cur == nil {
		return Pos{}
	}
	p := cur.Pos
	if !cur.Exact || off > len(s) {
		return p
	}
	for _, r := range s[cur.Offset:off] {
		if r == '\n' {
			p.Line++
			p.Col = 1
			continue
		}
		p.Col++
	}
	return p
}

// FieldPos returns the position of a resource's field from its Fields, or
// def (the resource's, or its enclosing field's) when the field was not
// written.
func FieldPos(fields map[string]Pos, name string, def Pos) Pos {
	if p, ok := fields[name]; ok && p.Line > 0 {
		return p
	}
	return def
}
