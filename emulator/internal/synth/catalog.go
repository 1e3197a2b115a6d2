package synth

// The service's catalog as the emulator knows it (speech-synthesis.md,
// "Resources and their fields"). Where the document gives only examples
// (the tts-v2.5 and tts-v3.0 voices, the tts-v3.0 languages) the emulator
// accepts a plausible built-in list that contains every example name.

const (
	modelV20 = "tts-v2.0"
	modelV25 = "tts-v2.5"
	modelV30 = "tts-v3.0"
	modelVC  = "vc-v1"
)

// voices lists the voices each named model accepts. vc-v1 takes none.
var voices = map[string][]string{
	modelV20: {"Pranav", "Kaveri", "Shubhra", "Deepak"},
	modelV25: voicesV25,
	modelV30: {"Shivani", "Avinash", "Kaveri", "Deepak", "Nalini", "Girish", "Poorvi", "Meera", "Rahul"},
}

// liveModels maps the live service's synthesis model names to the
// documented models they are: the live service accepts only these names
// for them (vachana-voice-v3 is its earlier name of timbre-v2.0).
var liveModels = map[string]string{
	"timbre-v2.0":      modelV20,
	"timbre-v2.5":      modelV25,
	"vachana-voice-v3": modelV20,
}

// voicesV25 are tts-v2.5's voices (timbre-v2.5 on the live service), by
// language: Hindi, English, Tamil, Telugu, Kannada, Malayalam, Marathi,
// Bengali, Gujarati, Punjabi and Hinglish. The documents show five of
// them (Nalini, Kaveri, Deepak, Girish, Poorvi) and quote a catalog of 42
// or 44; these are the 42 the service owner's client names, served under
// both profiles. The live timbre-v2.0 voices are the four of tts-v2.0.
var voicesV25 = []string{
	"Nalini", "Bhavna", "Yashvi", "Urmila", "Jwala", "Chitra", "Ambuja", "Deepak", "Roopesh", "Vikrant", "Hemraj", "Jalaj", "Omkar",
	"Kaveri", "Trupti", "Devika", "Pranav", "Shlok", "Girish",
	"Asmita", "Trisha", "Brinda", "Vedika", "Noopur",
	"Suhana", "Lehara", "Lavanya", "Yukti", "Varuni",
	"Saanvi", "Kavin",
	"Reshma", "Riyaan",
	"Zahira", "Ishaan",
	"Kirra", "Dhruva",
	"Falak", "Veera",
	"Mehuli", "Zayan",
	"Poorvi",
}

// languages lists the language values each model accepts. tts-v3.0 and
// vc-v1 accept the tts-v2.5 set (the documents show only hi-IN and en-IN
// for tts-v3.0 and nothing for vc-v1).
var languages = map[string][]string{
	modelV20: {"IND-IN"},
	modelV25: {"auto", "hi-IN", "en-IN", "ta-IN", "te-IN", "kn-IN", "ml-IN", "mr-IN", "pa-IN", "bn-IN", "gu-IN", "hi-en"},
}

func init() {
	languages[modelV30] = languages[modelV25]
	languages[modelVC] = languages[modelV25]
}

// languageRequired tells whether a model needs an explicit language: only
// tts-v2.5 by the documents; tts-v3.0 and vc-v1 detect it from the script.
var languageRequired = map[string]bool{modelV25: true}

// speeds are the named speeds.
var speeds = map[string]float64{"slow": 0.85, "medium": 1.0, "fast": 1.15}

const (
	minSpeed = 0.85
	maxSpeed = 1.15
)

// sampleRates is the supported set; the schema bounds (8000-48000) are wider
// and a rate between them outside the set is refused (SPEC section 8a).
var sampleRates = []int{8000, 16000, 22050, 24000, 44100, 48000}

var encodings = []string{"linear_pcm", "pcm_s16le", "pcm_mulaw", "pcm_alaw", "oggopus"}

var containers = []string{"wav", "raw", "mp3", "ogg", "mulaw", "alaw"}

var bitrates = []string{"32k", "64k", "96k", "128k", "192k"}

// contentTypes per container (Audio format reference).
var contentTypes = map[string]string{
	"wav":   "audio/wav",
	"raw":   "application/octet-stream",
	"mp3":   "audio/mpeg",
	"ogg":   "audio/ogg",
	"mulaw": "audio/basic",
	"alaw":  "audio/alaw",
}

// tagKind says what an audio tag does in the emulator's rendering.
type tagKind int

const (
	tagEvent   tagKind = iota // a sound at the tag's position, then that delivery
	tagStyle                  // a delivery from the tag on
	tagSilence                // <pauses>: silence, never spoken
)

// tags is the documented set (Audio tags); names match exactly, case and
// inner spaces included.
var tags = map[string]tagKind{
	"laugh": tagEvent, "giggle": tagEvent, "sigh": tagEvent, "exhales": tagEvent,
	"sniffles": tagEvent, "yawns": tagEvent, "coughs": tagEvent, "clears throat": tagEvent,
	"whispers": tagStyle, "shouting": tagStyle, "excited": tagStyle, "slow": tagStyle,
	"pauses": tagSilence,
}
