package recog

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// REST limits (speech-recognition.md, "REST transcription", "Limits").
const (
	restMaxSeconds = 60.0
	restMinRate    = 8000
	restMaxRate    = 44100
	// restMaxBytes bounds the upload of a 60 s clip in any documented
	// format (a 44.1 kHz stereo 32-bit WAV minute is about 21 MB).
	restMaxBytes = 25_000_000
)

// restContainers are the documented REST audio formats.
var restContainers = []string{"wav", "mp3", "ogg", "opus", "flac", "aac", "m4a"}

// transcribe serves POST /stt/v3.
func (s *service) transcribe(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	f, err := readForm(r, restMaxBytes, restMaxBytes+maxField*8)
	if err != nil {
		restError(w, err)
		return
	}
	defer f.cleanup()
	s.env.Receive(r.Pattern, f.received())
	opts, err := parseTextOptions(f, false)
	if err != nil {
		restInvalid(w, err.Error())
		return
	}
	files := f.files["audio_file"]
	if len(files) != 1 {
		restInvalid(w, "audio_file is required: send exactly one audio file")
		return
	}
	work := time.Now()
	a, err := s.analyzePath(files[0].Path)
	if err != nil {
		emu.WriteRESTError(w, http.StatusInternalServerError, emu.APIError, "could not read the audio file")
		return
	}
	if msg := restAudioProblem(a); msg != "" {
		restInvalid(w, msg)
		return
	}
	segs := a.segments(opts.lang, 1, 0)
	s.env.Stats.BillAudioSeconds(a.Seconds)
	answer := map[string]any{
		"success":    true,
		"request_id": s.id("req"),
		"transcript": opts.render(fullText(segs)),
	}
	if s.env.Opts.Live() {
		// The live answer has no timestamp; it names the model and times
		// the work (seconds, the emulator's choice of unit).
		answer["model"] = liveRESTModel
		answer["processing_time"] = seconds3(time.Since(work))
		answer["end_to_end_latency"] = seconds3(time.Since(began))
	} else {
		answer["timestamp"] = s.env.Now().UTC().Format("20060102_150405.000")
	}
	emu.WriteJSON(w, http.StatusOK, answer)
}

// liveRESTModel is the model the live REST answer names.
const liveRESTModel = "stt-v3"

// seconds3 is d in seconds, to the millisecond.
func seconds3(d time.Duration) float64 { return round3(d.Seconds()) }

// restAudioProblem checks a REST clip against the documented limits.
func restAudioProblem(a *analysis) string {
	switch {
	case a.Size == 0:
		return "audio_file is empty"
	case !slices.Contains(restContainers, a.Container):
		return "unsupported audio format: send WAV, MP3, OGG, FLAC, AAC or M4A"
	case a.Rate > 0 && a.Container != "opus" && (a.Rate < restMinRate || a.Rate > restMaxRate):
		// Opus always decodes at 48 kHz, whatever rate it was made from.
		return fmt.Sprintf("unsupported sampling rate %d Hz: the rate must be 8000 to 44100 Hz", a.Rate)
	case a.Seconds > restMaxSeconds+0.01:
		return fmt.Sprintf("audio is %.1f seconds long: the maximum is 60 seconds (use batch transcription for longer audio)", a.Seconds)
	}
	return ""
}

// textOptions are the REST and older batch fields that shape the text.
type textOptions struct {
	lang         string
	transcribe   bool // format=transcribe: ITN on
	native       bool
	multiChannel bool
}

func (o textOptions) render(text string) string {
	if !o.transcribe {
		return text
	}
	return itn(text, o.lang, o.native)
}

func parseTextOptions(f *form, legacy bool) (textOptions, error) {
	var o textOptions
	lang, ok := f.value("language_code")
	if !ok || lang == "" {
		return o, errors.New("language_code is required")
	}
	if strings.Contains(lang, ",") {
		return o, fmt.Errorf("language_code takes one language code per request, not %q", lang)
	}
	if !restLanguage(lang) {
		return o, fmt.Errorf("unsupported language_code %q: use one of bn-IN, en-IN, gu-IN, hi-IN, kn-IN, ml-IN, mr-IN, pa-IN, ta-IN, te-IN", lang)
	}
	o.lang = lang
	switch v, _ := f.value("format"); v {
	case "", "verbatim":
	case "transcribe":
		o.transcribe = true
	default:
		return o, fmt.Errorf("invalid format %q: use verbatim or transcribe", v)
	}
	var err error
	if o.native, err = boolField(f, "itn_native_numerals"); err != nil {
		return o, err
	}
	if legacy {
		if o.multiChannel, err = boolField(f, "is_multi_channel"); err != nil {
			return o, err
		}
	}
	return o, nil
}

func boolField(f *form, name string) (bool, error) {
	v, ok := f.value(name)
	if !ok || v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, not %q", name, v)
	}
	return b, nil
}

func restInvalid(w http.ResponseWriter, msg string) {
	emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, msg)
}

// restError answers a form-reading error in the REST shape.
func restError(w http.ResponseWriter, err error) {
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl), errors.Is(err, errNotMultipart):
		restInvalid(w, err.Error())
	default:
		restInvalid(w, "could not read the multipart body: "+err.Error())
	}
}
