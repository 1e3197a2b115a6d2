package synth

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator/internal/emu"
)

// ConversationPath is where the emulator makes a call recording it will
// hear: each turn synthesized (and so remembered) on its channel, one
// after another (RouteConversation).
const (
	ConversationPath  = "/_emulator/conversation"
	RouteConversation = "POST " + ConversationPath
)

// Bounds of a conversation request.
const (
	MaxConversationTurns   = 64
	MaxConversationText    = 500 // characters per turn
	MaxConversationChars   = 8000
	MaxConversationSeconds = 600.0
	MaxConversationBody    = 1 << 20
	MinConversationGapMS   = 300
	MaxConversationGapMS   = 5000
	DefaultConversationGap = 700 // ms
	// MaxConversationWAV bounds the WAV a conversation makes: its header
	// and MaxConversationSeconds of 8 channels of 16-bit samples at
	// 16 kHz.
	MaxConversationWAV = 44 + int64(MaxConversationSeconds)*16000*8*2
)

// ConversationRates are the sample rates of a conversation: telephone and
// wideband call recordings.
var ConversationRates = []int{8000, 16000}

// conversationVoices are the voices of turns that name none: even
// channels the first, odd channels the second (tts-v2.5 voices).
var conversationVoices = [2]string{"Nalini", "Deepak"}

// conversationRequest is the body of POST /_emulator/conversation.
type conversationRequest struct {
	SampleRate   int    `json:"sample_rate"`
	LanguageCode string `json:"language_code"`
	Channels     int    `json:"channels"` // 0: 2
	GapMS        *int   `json:"gap_ms"`
	Model        string `json:"model"` // "": tts-v2.5
	Turns        []struct {
		Channel *int   `json:"channel"`
		Speaker string `json:"speaker"`
		Text    string `json:"text"`
	} `json:"turns"`
}

// conversation is a validated conversation request.
type conversation struct {
	rate, channels, gap int // gap in samples
	turns               []turn
}

type turn struct {
	channel int
	j       *job
}

// parseConversation validates a conversation request: the bounds, and
// each turn as the synthesis request it makes.
func (s *service) parseConversation(body []byte) (*conversation, error) {
	var req conversationRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("conversation: read body: %v", err)
	}
	c := &conversation{rate: req.SampleRate, channels: max(req.Channels, 0)}
	if err := req.checkShape(); err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	if c.channels == 0 {
		c.channels = 2
	}
	gap := DefaultConversationGap
	if req.GapMS != nil {
		gap = *req.GapMS
	}
	c.gap = gap * c.rate / 1000
	for i := range req.Turns {
		t, err := s.parseTurn(&req, i, c.channels)
		if err != nil {
			return nil, fmt.Errorf("conversation: turns[%d]: %w", i, err)
		}
		c.turns = append(c.turns, t)
	}
	return c, nil
}

// checkShape checks the bounds that do not depend on synthesis.
func (req *conversationRequest) checkShape() error {
	switch {
	case !slices.Contains(ConversationRates, req.SampleRate):
		return fmt.Errorf("sample_rate %d: must be 8000 or 16000", req.SampleRate)
	case req.LanguageCode == "":
		return errors.New("language_code is required")
	case req.Channels != 0 && (req.Channels < 2 || req.Channels > 8):
		return fmt.Errorf("channels %d: must be 2 to 8", req.Channels)
	case req.GapMS != nil && (*req.GapMS < MinConversationGapMS || *req.GapMS > MaxConversationGapMS):
		return fmt.Errorf("gap_ms %d: must be %d to %d", *req.GapMS, MinConversationGapMS, MaxConversationGapMS)
	case len(req.Turns) == 0:
		return errors.New("turns is required: at least one turn")
	case len(req.Turns) > MaxConversationTurns:
		return fmt.Errorf("%d turns: at most %d", len(req.Turns), MaxConversationTurns)
	}
	total := 0
	for i, t := range req.Turns {
		if !utf8.ValidString(t.Text) {
			return fmt.Errorf("turns[%d].text is not valid UTF-8", i)
		}
		total += utf8.RuneCountInString(t.Text)
	}
	if total > MaxConversationChars {
		return fmt.Errorf("turns hold %d characters of text: at most %d", total, MaxConversationChars)
	}
	return nil
}

// parseTurn validates turn i as the synthesis request it makes.
func (s *service) parseTurn(req *conversationRequest, i, channels int) (turn, error) {
	t := req.Turns[i]
	switch {
	case t.Channel == nil:
		return turn{}, errors.New("channel is required")
	case *t.Channel < 0 || *t.Channel >= channels:
		return turn{}, fmt.Errorf("channel %d: must be 0 to %d", *t.Channel, channels-1)
	case strings.TrimSpace(t.Text) == "":
		return turn{}, errors.New("text is empty")
	case utf8.RuneCountInString(t.Text) > MaxConversationText:
		return turn{}, fmt.Errorf("text is %d characters long: at most %d", utf8.RuneCountInString(t.Text), MaxConversationText)
	}
	model, voice := req.Model, t.Speaker
	if model == "" {
		model = modelV25
		if s.env.Opts.Live() {
			model = "timbre-v2.5" // the live service's name of tts-v2.5
		}
	}
	if voice == "" {
		voice = conversationVoices[*t.Channel%2]
	}
	body, err := json.Marshal(map[string]any{"text": t.Text, "model": model, "voice": voice,
		"language": req.LanguageCode, "audio_config": map[string]any{"sample_rate": req.SampleRate}})
	if err != nil {
		return turn{}, err
	}
	j, err := s.parse(body)
	if err != nil {
		return turn{}, err
	}
	return turn{channel: *t.Channel, j: j}, nil
}

// conversation serves RouteConversation: a WAV of 16-bit PCM, one channel
// per party, in which the turns follow each other with gap_ms of silence
// between them and before the first and after the last. Each turn is
// rendered as a synthesis of its text would be, and remembered, but not
// billed, counted or faulted.
func (s *service) conversation(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxConversationBody))
	if err != nil {
		emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest,
			fmt.Sprintf("conversation: read body: larger than %d bytes or unreadable", MaxConversationBody))
		return
	}
	c, err := s.parseConversation(body)
	if err != nil {
		emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, err.Error())
		return
	}
	clips, err := s.renderTurns(r, c)
	if err != nil {
		var tooLong *requestError
		if errors.As(err, &tooLong) {
			emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, err.Error())
			return
		}
		writeOpenError(w, err)
		return
	}
	c.write(w, clips)
}

// renderTurns renders every turn, bounding the recording's length.
func (s *service) renderTurns(r *http.Request, c *conversation) ([][]int16, error) {
	clips := make([][]int16, len(c.turns))
	frames := int64(c.gap)
	for i, t := range c.turns {
		src, err := s.r.open(r.Context(), t.j, c.rate)
		if err != nil {
			return nil, fmt.Errorf("conversation: turns[%d]: %w", i, err)
		}
		clips[i], err = readAllSamples(src)
		src.Close()
		if err != nil {
			return nil, fmt.Errorf("conversation: turns[%d]: %w", i, err)
		}
		frames += int64(len(clips[i]) + c.gap)
		if sec := float64(frames) / float64(c.rate); sec > MaxConversationSeconds {
			return nil, invalid("conversation: turns[%d]: the recording reaches %.0f seconds: at most %.0f", i, sec, MaxConversationSeconds)
		}
	}
	return clips, nil
}

func readAllSamples(src pcmSource) ([]int16, error) {
	out := make([]int16, 0, max(src.Total(), 0))
	buf := make([]int16, 8192)
	for {
		n, err := src.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// write sends the recording: the header, then each turn on its channel
// with silence on the others, frames interleaved.
func (c *conversation) write(w http.ResponseWriter, clips [][]int16) {
	frames := int64(c.gap)
	for _, cl := range clips {
		frames += int64(len(cl) + c.gap)
	}
	f := audio.Format{SampleRate: c.rate, Channels: c.channels, BitsPerSample: 16, Encoding: audio.PCM}
	data := frames * int64(f.BlockAlign())
	w.Header().Set("Content-Type", "audio/wav")
	w.Header().Set("Content-Length", itoa(int64(audio.WAVHeaderSize(f))+data))
	if err := audio.WriteWAVHeader(w, f, data); err != nil {
		return
	}
	frame := f.BlockAlign()
	silence := make([]byte, c.gap*frame)
	if _, err := w.Write(silence); err != nil {
		return
	}
	for i, cl := range clips {
		buf := make([]byte, len(cl)*frame)
		off := 2 * c.turns[i].channel
		for k, v := range cl {
			binary.LittleEndian.PutUint16(buf[k*frame+off:], uint16(v))
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		if _, err := w.Write(silence); err != nil {
			return
		}
	}
}
