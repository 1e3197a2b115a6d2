package emu

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Options are the emulator's knobs (SPEC section 8). The zero value is a
// fault-free emulator that accepts any non-empty API key.
type Options struct {
	// Latency is added before every API response.
	Latency time.Duration
	// FailRate is the fraction of API requests answered 500 API_ERROR or
	// 503 SERVICE_UNAVAILABLE before any work is done.
	FailRate float64
	// RateLimit is the fraction of API requests answered 429 with Retry-After.
	RateLimit float64
	// RetryAfter is the Retry-After sent with injected 429s (whole seconds
	// on the wire; 0 sends "0").
	RetryAfter time.Duration
	// RPS is the service's own rate limit, in API requests per second
	// (0: none): a token bucket refilled at RPS a second and holding Burst
	// tokens. A request that finds it empty is answered 429
	// RATE_LIMIT_ERROR with a Retry-After of the whole seconds until a
	// token is there again (at least 1), and does no work. Every API route
	// takes a token, realtime WebSocket upgrades and batch status polls
	// included; presigned storage downloads and the emulator's own
	// /_emulator routes do not. Stats count these answers apart from the
	// injected ones (rate_limited).
	RPS float64
	// Burst is how many requests the bucket of RPS admits at once (0: a
	// tenth of a second's worth, at least 2).
	Burst int
	// DropRate is the fraction of successful responses whose connection is
	// cut mid-body (after the work was done: a dropped create still created).
	DropRate float64
	// Seed seeds every random choice (faults, ids, placeholder transcripts).
	Seed uint64
	// TruncateRate, ReplaceRate, SilenceRate and DropHalfRate are the
	// fractions of syntheses whose audio carries a speech fault (see
	// SpeechFaultKinds); at most 1 together. The answer is otherwise
	// normal: 200, the format asked for, the whole text billed. The draw
	// is keyed on Seed, the request and how many times the same request
	// was synthesized before, so that a second synthesis draws afresh and
	// parallel requests fault alike in any order.
	//
	// TruncateRate: the last sentence is cut after half its words.
	TruncateRate float64
	// ReplaceRate: a run of 3 to 5 words is spoken as other words.
	ReplaceRate float64
	// SilenceRate: the audio is silence as long as the speech would be.
	SilenceRate float64
	// DropHalfRate: the second half of the words is not spoken (a chunk
	// of a long text that lost its end).
	DropHalfRate float64
	// NoiseRate is the fraction of words that recognition of the
	// emulator's own speech gets wrong (recognition noise), each word on
	// its own and never two in a row: a word of the same script replaces
	// it, drawn from Seed and the audio, so that the same audio always
	// gets the same transcript.
	NoiseRate float64
	// Profile is the service the emulator behaves as: ProfileDocumented
	// ("" too), the service of the documents, or ProfileLive, the live
	// service as its owner's published client (0.7.x) speaks to it: the
	// live synthesis model names, voices and Opus rule, each SSE chunk a
	// whole WAV file, JSON text frames on the synthesis WebSocket, the live
	// REST recognition answer and realtime recognition at /stt/v3/stream
	// with its own protocol. Any other value is refused by Start.
	Profile string
	// LiveQuirks is ProfileLive under its earlier name.
	//
	// Deprecated: set Profile to ProfileLive.
	LiveQuirks bool
	// TranscriptURLTTL is how long a presigned transcript URL stays valid
	// (0: one hour, as documented).
	TranscriptURLTTL time.Duration
	// Keys are the accepted API keys; empty accepts any non-empty key.
	// A key outside the list gets FORBIDDEN (403).
	Keys []string
	// TimeScale speeds up batch job progression: 60 makes a minute a second
	// (0 or 1: real time).
	TimeScale float64
	// MaxText is the maximum synthesis text length in characters (0: 5000).
	MaxText int
	// NoEspeak disables espeak-ng even when it is on the PATH.
	NoEspeak bool
	// ExtraVoices adds voice names per model to the emulator's built-in
	// catalog, as a manifest's catalog block does (e.g. {"tts-v2.5":
	// ["Arjun"]}), so that -emulate accepts what validate accepts.
	ExtraVoices map[string][]string
	// Received, when set, sees what every call asked for, as the
	// emulator read it: the JSON body of a synthesis (any transport), the
	// form fields of a REST or older batch transcription, the query of a
	// realtime session (of a live one, its handshake headers but the key),
	// and a batch job's config and callback_url. Tests
	// compare it with what was planned. It is called from many goroutines.
	Received func(route string, request map[string]any)
}

// Emulator profiles (Options.Profile).
const (
	ProfileDocumented = "documented"
	ProfileLive       = "live"
)

// Bounds of Options.RPS and Options.Burst.
const (
	MinRPS   = 0.01
	MaxRPS   = 100_000
	MaxBurst = 1_000_000
)

// CheckRate refuses an RPS or Burst outside its bounds.
func (o Options) CheckRate() error {
	switch {
	case o.RPS != 0 && !(o.RPS >= MinRPS && o.RPS <= MaxRPS): // NaN too
		return fmt.Errorf("rate limit %v requests per second: must be 0 (none) or between %v and %v", o.RPS, MinRPS, float64(MaxRPS))
	case o.Burst < 0 || o.Burst > MaxBurst:
		return fmt.Errorf("rate limit burst %d: must be between 0 (the default) and %d", o.Burst, MaxBurst)
	}
	return nil
}

// burst is the size of the rate limit's bucket.
func (o Options) burst() int {
	if o.Burst > 0 {
		return o.Burst
	}
	return max(2, int(math.Ceil(o.RPS/10)))
}

// Live reports whether the options ask for the live service's behaviour.
func (o Options) Live() bool { return o.Profile == ProfileLive || o.LiveQuirks }

// Served is the profile the options serve: ProfileLive or
// ProfileDocumented, as HeaderProfile names it.
func (o Options) Served() string {
	if o.Live() {
		return ProfileLive
	}
	return ProfileDocumented
}

// CheckProfile refuses a Profile that names neither service.
func (o Options) CheckProfile() error {
	switch {
	case o.Profile == ProfileDocumented && o.LiveQuirks:
		return fmt.Errorf("live quirks are the live profile, not %q", o.Profile)
	case o.Profile == "", o.Profile == ProfileDocumented, o.Profile == ProfileLive:
		return nil
	}
	return fmt.Errorf("profile %q is not live or documented", o.Profile)
}

// Receive reports a request to Opts.Received, if set.
func (e *Env) Receive(route string, request map[string]any) {
	if e.Opts.Received != nil {
		e.Opts.Received(route, request)
	}
}

// ReceiveJSON reports a JSON object body to Opts.Received, if set.
func (e *Env) ReceiveJSON(route string, body []byte) {
	if e.Opts.Received == nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		e.Opts.Received(route, m)
	}
}

// Env is what every handler shares: the options, the statistics, the random
// source, the clock and the spoken-audio registry.
type Env struct {
	Opts     Options
	Stats    *Stats
	Registry *Registry

	// bucket is the rate limit (Opts.RPS); nil for none.
	bucket *rate.Limiter

	// speech counts the syntheses of each request, for speech faults.
	speech speechCounts

	mu  sync.Mutex
	rnd *rand.Rand
	// now is the clock; tests may replace it with SetClock.
	now func() time.Time
}

// NewEnv returns an Env for opts, filling documented defaults.
func NewEnv(opts Options) *Env {
	if opts.TranscriptURLTTL == 0 {
		opts.TranscriptURLTTL = time.Hour
	}
	if opts.TimeScale <= 0 {
		opts.TimeScale = 1
	}
	if opts.MaxText == 0 {
		opts.MaxText = 5000
	}
	var bucket *rate.Limiter
	if opts.RPS > 0 && opts.CheckRate() == nil {
		bucket = rate.NewLimiter(rate.Limit(opts.RPS), opts.burst())
	}
	return &Env{
		bucket:   bucket,
		Opts:     opts,
		Stats:    NewStats(),
		Registry: NewRegistry(),
		rnd:      rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		now:      time.Now,
	}
}

// Now returns the current time of the emulator's clock.
func (e *Env) Now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now()
}

// SetClock replaces the clock (tests).
func (e *Env) SetClock(now func() time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = now
}

// Float64 returns a seeded random number in [0, 1).
func (e *Env) Float64() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rnd.Float64()
}

// Uint64 returns a seeded random number.
func (e *Env) Uint64() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rnd.Uint64()
}

// Admit takes a token of the rate limit (Opts.RPS) for one API request.
// When the bucket is empty it returns false and the Retry-After to send:
// the whole seconds until a token is there again, rounded up (HTTP's
// Retry-After counts whole seconds), at least 1.
func (e *Env) Admit() (ok bool, retryAfter int) {
	if e.bucket == nil {
		return true, 0
	}
	now := e.Now()
	if e.bucket.AllowN(now, 1) {
		return true, 0
	}
	wait := (1 - e.bucket.TokensAt(now)) / e.Opts.RPS
	return false, max(1, int(math.Ceil(wait)))
}

// Scaled converts a duration of service time into emulator wall time,
// according to TimeScale.
func (e *Env) Scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) / e.Opts.TimeScale)
}
