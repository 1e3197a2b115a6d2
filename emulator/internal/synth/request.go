package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// rawRequest is the synthesis request body as sent (speech-synthesis.md,
// "Synthesis request"). Pointers tell absent fields from zero values.
type rawRequest struct {
	Text             *string          `json:"text"`
	Model            *string          `json:"model"`
	Voice            *string          `json:"voice"`
	Language         *string          `json:"language"`
	Speed            json.RawMessage  `json:"speed"`
	AudioConfig      *rawAudioConfig  `json:"audio_config"`
	SpeakerEmbedding *json.RawMessage `json:"speaker_embedding"`
}

type rawAudioConfig struct {
	SampleRate  *int    `json:"sample_rate"`
	NumChannels *int    `json:"num_channels"`
	SampleWidth *int    `json:"sample_width"`
	Encoding    *string `json:"encoding"`
	Container   *string `json:"container"`
	Bitrate     *string `json:"bitrate"`
}

type rawEmbedding struct {
	Embedding *string `json:"embedding"`
	Shape     []int   `json:"shape"`
	DType     *string `json:"dtype"`
}

// outFormat is a resolved audio_config: aliases folded, defaults filled,
// mulaw/alaw forced to 8000 Hz.
type outFormat struct {
	Container string // wav, raw, mp3, ogg, mulaw, alaw
	Rate      int
	Channels  int
	Width     int // bytes per sample of linear PCM (wav, raw)
	Bitrate   string
}

// frameBytes is the size of one output frame of a PCM-like container.
func (f outFormat) frameBytes() int {
	switch f.Container {
	case "mulaw", "alaw":
		return f.Channels
	}
	return f.Channels * f.Width
}

// job is a validated synthesis request.
type job struct {
	Text      string // as sent, tags included (billed)
	Model     string // the documented name: a live name is folded into it
	Sent      string // the model as the request named it
	Voice     string // empty for vc-v1
	Language  string
	Speed     float64
	Format    outFormat
	Parts     []part // text and tags, after the model's tag rules
	Spoken    string // what is said: the text without tags
	Embedding string // identity of the cloned voice (vc-v1)

	// silent and fault are a speech fault drawn for the job (faults.go):
	// silent renders silence as long as the speech; fault is the fault's
	// entry in the list of faults, nil when none is listed.
	silent bool
	fault  *emu.SpeechFault

	extraVoices map[string][]string
	live        bool
}

// requestError is a 400 INVALID_REQUEST_ERROR with its message.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func invalid(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// parseJob decodes and validates a synthesis request body against the
// built-in catalog.
func parseJob(body []byte, maxText int) (*job, error) {
	return parseJobWith(body, maxText, nil)
}

// parseJobWith validates with extra voices per model added to the catalog.
func parseJobWith(body []byte, maxText int, extraVoices map[string][]string) (*job, error) {
	return parseJobFor(body, maxText, extraVoices, false)
}

// parseJobFor validates against the documented service, or the live one:
// its model names, voices and Opus rule.
func parseJobFor(body []byte, maxText int, extraVoices map[string][]string, live bool) (*job, error) {
	var raw rawRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return nil, invalid("request body is not a valid synthesis request: %v", err)
	}
	j := &job{extraVoices: extraVoices, live: live}
	if err := j.model(raw); err != nil {
		return nil, err
	}
	steps := []func(rawRequest) error{j.text(maxText), j.voice, j.language, j.speed, j.embedding, j.audio}
	for _, step := range steps {
		if err := step(raw); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (j *job) model(raw rawRequest) error {
	names := "tts-v2.5, tts-v2.0, tts-v3.0, vc-v1"
	if j.live {
		names = "timbre-v2.5, timbre-v2.0, tts-v3.0, vc-v1"
	}
	if raw.Model == nil || *raw.Model == "" {
		return invalid("model is required: one of %s", names)
	}
	m := *raw.Model
	j.Sent = m
	switch {
	case j.live && liveModels[m] != "":
		j.Model = liveModels[m]
	case j.live && (m == modelV20 || m == modelV25):
		// The live service knows these models by their live names only.
		return invalid("model %q is not supported: use one of %s", m, names)
	case m == modelV20 || m == modelV25 || m == modelV30 || m == modelVC:
		j.Model = m
	default:
		return invalid("model %q is not supported: use one of %s", m, names)
	}
	return nil
}

func (j *job) text(maxText int) func(rawRequest) error {
	return func(raw rawRequest) error {
		if raw.Text == nil {
			return invalid("text is required")
		}
		j.Text = *raw.Text
		if !utf8.ValidString(j.Text) {
			return invalid("text is not valid UTF-8")
		}
		if n := utf8.RuneCountInString(j.Text); n > maxText {
			return invalid("text is %d characters long; the maximum is %d", n, maxText)
		}
		j.Parts = parseTags(j.Text, j.Model == modelV30)
		j.Spoken = spokenText(j.Parts)
		if strings.TrimSpace(j.Spoken) == "" && !hasRenderedTag(j.Parts) {
			if strings.TrimSpace(j.Text) == "" {
				return invalid("text is empty")
			}
			return invalid("text consists only of audio tags, which %s does not speak", j.Sent)
		}
		return nil
	}
}

func (j *job) voice(raw rawRequest) error {
	if j.Model == modelVC {
		if raw.Voice != nil {
			return invalid("voice is not used with vc-v1: send speaker_embedding instead")
		}
		return nil
	}
	if raw.Voice == nil || *raw.Voice == "" {
		return invalid("voice is required for %s", j.Sent)
	}
	known := voices[j.Model]
	v := *raw.Voice
	if !slices.Contains(known, v) && !slices.Contains(j.extraVoices[j.Model], v) && !slices.Contains(j.extraVoices[j.Sent], v) {
		return invalid("voice %q is not supported by %s", v, j.Sent)
	}
	j.Voice = *raw.Voice
	return nil
}

func (j *job) language(raw rawRequest) error {
	if raw.Language == nil {
		if languageRequired[j.Model] {
			return invalid("language is required for %s", j.Sent)
		}
		if j.Model == modelV20 {
			j.Language = "IND-IN"
		}
		return nil
	}
	if !slices.Contains(languages[j.Model], *raw.Language) {
		return invalid("language %q is not supported by %s: use one of %s", *raw.Language, j.Sent, strings.Join(languages[j.Model], ", "))
	}
	j.Language = *raw.Language
	return nil
}

func (j *job) speed(raw rawRequest) error {
	j.Speed = 1
	if len(raw.Speed) == 0 || string(raw.Speed) == "null" {
		return nil
	}
	if j.Model == modelV20 {
		if j.live {
			return invalid("speed is not supported by %s (timbre-v2.5 only)", j.Sent)
		}
		return invalid("speed is not supported by tts-v2.0 (tts-v2.5 and later only)")
	}
	var name string
	if json.Unmarshal(raw.Speed, &name) == nil {
		v, ok := speeds[name]
		if !ok {
			return invalid("speed %q is not one of slow, medium, fast", name)
		}
		j.Speed = v
		return nil
	}
	v, err := strconv.ParseFloat(string(raw.Speed), 64)
	if err != nil {
		return invalid("speed must be a number or one of slow, medium, fast")
	}
	if v < minSpeed-1e-9 || v > maxSpeed+1e-9 {
		return invalid("speed %v is out of range 0.85 to 1.15", v)
	}
	j.Speed = v
	return nil
}

func (j *job) embedding(raw rawRequest) error {
	if j.Model != modelVC {
		return nil
	}
	if raw.SpeakerEmbedding == nil {
		return invalid("speaker_embedding is required for vc-v1")
	}
	var e rawEmbedding
	if err := json.Unmarshal(*raw.SpeakerEmbedding, &e); err != nil {
		return invalid("speaker_embedding is not an embedding object: %v", err)
	}
	if e.Embedding == nil || *e.Embedding == "" {
		return invalid("speaker_embedding.embedding is required")
	}
	if len(e.Shape) != 2 || e.Shape[1] != embeddingDim || e.Shape[0] < 1 {
		return invalid("speaker_embedding.shape must be [N, %d]", embeddingDim)
	}
	if e.DType == nil || *e.DType == "" {
		return invalid("speaker_embedding.dtype is required")
	}
	j.Embedding = *e.Embedding
	return nil
}
