package emulator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
	"github.com/voxform/voxform/emulator/internal/recog"
	"github.com/voxform/voxform/emulator/internal/synth"
)

// Options are the emulator's knobs; see emu.Options for each field.
type Options = emu.Options

// The services the emulator can behave as (Options.Profile).
const (
	// ProfileDocumented is the service of the documents (the default).
	ProfileDocumented = emu.ProfileDocumented
	// ProfileLive is the live service as its owner's published client
	// speaks to it.
	ProfileLive = emu.ProfileLive
)

// HeaderProfile is the header in which the emulator names the profile it
// serves (ProfileLive or ProfileDocumented) on every answer, WebSocket
// handshakes included; GET /_emulator/profile answers with it too. The
// service itself sends no such header, so its absence says nothing.
const HeaderProfile = emu.HeaderProfile

// Bounds of Options.RPS and Options.Burst.
const (
	MinRPS   = emu.MinRPS
	MaxRPS   = emu.MaxRPS
	MaxBurst = emu.MaxBurst
)

// Speech fault kinds (Options.TruncateRate and the rates after it), as
// the stats and GET /_emulator/speech-faults name them.
const (
	FaultTruncate = emu.FaultTruncate
	FaultReplace  = emu.FaultReplace
	FaultSilence  = emu.FaultSilence
	FaultDropHalf = emu.FaultDropHalf
)

// MaxSpeechFaultsListed bounds the list of GET /_emulator/speech-faults.
const MaxSpeechFaultsListed = emu.MaxSpeechFaultsListed

// ConversationPath is where the emulator makes call recordings it will
// hear (POST, see the package documentation); MaxConversationBody bounds
// the request and MaxConversationWAV the recording it answers.
const (
	ConversationPath    = synth.ConversationPath
	MaxConversationBody = synth.MaxConversationBody
	MaxConversationWAV  = synth.MaxConversationWAV
)

// Server is the emulated service.
type Server struct {
	env     *emu.Env
	mux     *emu.Mux
	closers []func()
}

// New returns an emulator with the given options. A Profile other than
// ProfileLive is served as documented; Start refuses one it does not know,
// an RPS or Burst out of bounds (New serves those without a limit), and
// speech fault or noise rates out of bounds.
func New(opts Options) *Server {
	env := emu.NewEnv(opts)
	s := &Server{env: env, mux: emu.NewMux(env)}
	synth.Register(s.mux, env)
	s.closers = append(s.closers, recog.Register(s.mux, env))
	s.mux.HandleRaw("GET /_emulator/stats", s.serveStats)
	s.mux.HandleRaw("GET /_emulator/speech-faults", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.SpeechFaultsJSON())
	})
	s.mux.HandleRaw("GET /_emulator/profile", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, "{\"profile\": %q}\n", env.Opts.Served())
	})
	s.mux.HandleRaw("POST /_emulator/reset", func(w http.ResponseWriter, r *http.Request) {
		env.Stats.Reset()
		env.ResetSpeech()
		w.WriteHeader(http.StatusNoContent)
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// StatsJSON returns the document served at GET /_emulator/stats.
func (s *Server) StatsJSON() []byte {
	b, _ := s.env.Stats.MarshalJSON()
	return b
}

// SpeechFaultsJSON returns the document served at
// GET /_emulator/speech-faults: {"faults": [...], "unlisted": n}, each
// synthesis whose audio carries a speech fault (Options.TruncateRate and
// the rates after it) since the start or the last POST /_emulator/reset,
// with its kind, route, requested text, the text its audio says, its
// request and occurrence, and the SHA-256 of the audio sent; at most
// MaxSpeechFaultsListed of them, the rest counted as unlisted. The stats
// count them by kind (speech_faults).
func (s *Server) SpeechFaultsJSON() []byte {
	b, _ := s.env.Stats.SpeechFaultsJSON()
	return b
}

// SetClock replaces the emulator's clock (tests of expiring URLs and job
// progression).
func (s *Server) SetClock(now func() time.Time) { s.env.SetClock(now) }

func (s *Server) serveStats(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.StatsJSON())
}

// Close stops background work (job progression, webhooks).
func (s *Server) Close() {
	for _, c := range s.closers {
		if c != nil {
			c()
		}
	}
}

// Running is an emulator listening on a loopback address.
type Running struct {
	*Server
	// URL is the base URL, e.g. http://127.0.0.1:43210.
	URL  string
	srv  *http.Server
	done chan struct{} // closed when Serve returns; err is then set
	err  error
}

// Start serves a new emulator on addr ("127.0.0.1:0" picks a free port).
func Start(opts Options, addr string) (*Running, error) {
	if err := opts.CheckProfile(); err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	if err := opts.CheckRate(); err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	if err := opts.CheckSpeechFaults(); err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("emulator: listen %s: %w", addr, err)
	}
	s := New(opts)
	r := &Running{
		Server: s,
		URL:    "http://" + ln.Addr().String(),
		srv:    &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second},
		done:   make(chan struct{}),
	}
	go func() {
		r.err = r.srv.Serve(ln)
		close(r.done)
	}()
	return r, nil
}

// Shutdown stops the listener and background work.
func (r *Running) Shutdown(ctx context.Context) error {
	err := r.srv.Shutdown(ctx)
	r.Server.Close()
	if serr := r.Wait(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// Wait blocks until the server stops serving.
func (r *Running) Wait() error {
	<-r.done
	if errors.Is(r.err, http.ErrServerClosed) {
		return nil
	}
	return r.err
}

// Done is closed when the server stops serving.
func (r *Running) Done() <-chan struct{} { return r.done }
