package synth

import (
	"errors"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Routes, also the stats keys (SPEC section 8).
const (
	routeInference  = "POST /api/v1/tts/inference"
	routeSSE        = "POST /api/v1/tts/sse"
	routeRealtime   = "GET /api/v1/tts"
	routeEmbeddings = "POST /api/v1/tts/voice-clone/embeddings"
)

// service holds what the synthesis handlers share.
type service struct {
	env *emu.Env
	r   *renderer
	enc *encodedCache
}

// Register adds the synthesis endpoints to m.
func Register(m *emu.Mux, env *emu.Env) {
	s := &service{env: env, r: newRenderer(env), enc: newEncodedCache()}
	m.Handle(emu.Route{Pattern: routeInference, Shape: emu.ShapeREST, Handler: s.inference})
	m.Handle(emu.Route{Pattern: routeSSE, Shape: emu.ShapeREST, Handler: s.sse})
	m.Handle(emu.Route{Pattern: routeRealtime, Shape: emu.ShapeREST, Handler: s.realtime})
	m.Handle(emu.Route{Pattern: routeEmbeddings, Shape: emu.ShapeREST, Handler: s.embeddings})
	m.HandleRaw(RouteConversation, s.conversation)
}

// maxBody bounds a synthesis request body: the text limit in 4-byte
// characters plus room for the other fields and an embedding.
func (s *service) maxBody() int64 { return int64(s.env.Opts.MaxText)*4 + 1<<20 }

// readJob reads and validates the request, answering 400 itself.
func (s *service) readJob(w http.ResponseWriter, r *http.Request) (*job, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody()))
	if err != nil {
		emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, "request body is too large or unreadable")
		return nil, false
	}
	s.env.ReceiveJSON(r.Pattern, body)
	j, err := s.parse(body)
	if err != nil {
		emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, err.Error())
		return nil, false
	}
	s.fault(j, r.Pattern)
	return j, true
}

// parse validates a synthesis request body against the profile served.
func (s *service) parse(body []byte) (*job, error) {
	o := s.env.Opts
	return parseJobFor(body, o.MaxText, o.ExtraVoices, o.Live())
}

// bill records a synthesis that was done: every code point of the text,
// tags and brackets included (Audio tags rule 6).
func (s *service) bill(j *job) {
	s.env.Stats.BillCharacters(int64(utf8.RuneCountInString(j.Text)))
	s.env.Stats.Inc(emu.Syntheses)
}

// writeOpenError answers a failure to start rendering or encoding.
func writeOpenError(w http.ResponseWriter, err error) {
	if errors.Is(err, errNoFFmpeg) {
		emu.WriteRESTError(w, http.StatusServiceUnavailable, emu.ServiceUnavailable,
			"the emulator needs ffmpeg on the PATH to produce mp3 and ogg audio")
		return
	}
	emu.WriteRESTError(w, http.StatusInternalServerError, emu.APIError, "synthesis failed: "+err.Error())
}

// inference is POST /api/v1/tts/inference: the whole audio as one body.
func (s *service) inference(w http.ResponseWriter, r *http.Request) {
	j, ok := s.readJob(w, r)
	if !ok {
		return
	}
	enc, err := s.open(r, j)
	if err != nil {
		writeOpenError(w, err)
		return
	}
	defer enc.Close()
	// The first piece is read before the status is sent, so that an
	// encoder failing at once is a 500, not a cut body.
	buf := make([]byte, 64<<10)
	n, err := io.ReadFull(enc, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		writeOpenError(w, err)
		return
	}
	w.Header().Set("Content-Type", contentTypes[j.Format.Container])
	if enc.size >= 0 {
		w.Header().Set("Content-Length", itoa(enc.size))
	}
	s.bill(j)
	w.WriteHeader(http.StatusOK)
	for {
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return
		}
		if err != nil {
			panic(http.ErrAbortHandler) // a short body must not look complete
		}
		n, err = io.ReadFull(enc, buf)
	}
}

// open renders j and wraps it in its container. The audio of a listed
// speech fault is hashed as it is read.
func (s *service) open(r *http.Request, j *job) (*encoded, error) {
	enc, err := s.encoded(r, j)
	if err != nil || j.fault == nil {
		return enc, err
	}
	enc.Reader = &summedReader{r: enc.Reader, sum: newSummer(s.env, j.fault)}
	return enc, nil
}

// encoded renders j and wraps it in its container.
func (s *service) encoded(r *http.Request, j *job) (*encoded, error) {
	compressed := j.Format.Container == "mp3" || j.Format.Container == "ogg"
	key := formatKey(s.r.key(j, j.Format.Rate), j.Format)
	if compressed {
		if enc, ok := s.enc.cached(key); ok {
			return enc, nil
		}
	}
	src, err := s.r.open(r.Context(), j, j.Format.Rate)
	if err != nil {
		return nil, err
	}
	enc, err := encode(r.Context(), src, j.Format)
	if err != nil || !compressed {
		return enc, err
	}
	return s.enc.recording(key, enc), nil
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
