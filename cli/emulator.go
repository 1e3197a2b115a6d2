package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
)

func init() {
	register(&command{name: "emulator", synopsis: "serve the speech service locally (for tests and offline runs)", run: runEmulator})
}

const emulatorUsage = `
Usage: voxform emulator [flags]
       voxform emulator conversation [-url URL] [-out FILE.wav] SCRIPT.yaml

Serves a faithful local implementation of the speech service: every
synthesis and recognition endpoint, with its validation, limits, errors,
batch job state machine, presigned URLs and webhooks. Point voxform at it
with service.base_url or VOXFORM_BASE_URL. GET /_emulator/stats reports
what it was asked and what it billed.

-profile live (the default, as a manifest's) serves the service as the
live service answers its owner's published client: the live synthesis
model names (timbre-v2.0, timbre-v2.5), voices and Opus rule,
WAV-per-chunk SSE, JSON WebSocket frames, the live REST recognition answer
and realtime recognition at /stt/v3/stream with the live protocol;
-profile documented serves the service its documents describe.
-live-quirks is -profile live. Every answer names the profile in an
X-Emulator-Profile header: voxform apply refuses an emulator whose
profile is not the manifest's.

-rps R gives the service a rate limit of its own: a token bucket of R
API requests a second (every API route, WebSocket upgrades and batch
status polls included; not presigned downloads or /_emulator). A request
past it is answered 429 RATE_LIMIT_ERROR with a Retry-After in whole
seconds, at least 1; the stats count these as rate_limited, apart from
the 429s -rate-limit injects.

-truncate-rate, -replace-rate, -silence-rate and -drop-half-rate make a
fraction of syntheses say something other than their text, as a real
service sometimes does: the last sentence cut after half its words, a
run of 3 to 5 words spoken as other words, silence as long as the speech,
or the second half of the words missing. The answer is otherwise normal
(200, the format asked for, the whole text billed), and transcribing the
audio through the emulator gives the faulty words. The draw depends on
-seed, the request and how many times it was synthesized before, so that
a second synthesis of the same request draws afresh and parallel
requests fault alike in any order. -noise-rate mishears that fraction of
the words of the emulator's own speech, the same words each time the
same audio is transcribed. GET /_emulator/speech-faults lists each
faulted synthesis (kind, text requested, text spoken, SHA-256 of the
audio); the stats count them by kind (speech_faults).

'voxform emulator conversation' asks a running emulator for a call
recording it will hear (see 'voxform emulator conversation -h').

Flags:
`

// emulatorFlags are the emulator's knobs as flags, shared by the emulator
// command.
type emulatorFlags struct {
	latency    time.Duration
	failRate   float64
	rateLimit  float64
	retryAfter time.Duration
	rps        float64
	rpsBurst   int
	dropRate   float64
	seed       uint64
	profile    string
	liveQuirks bool
	urlTTL     time.Duration
	keys       string
	timeScale  float64
	maxText    int
	noEspeak   bool
	// speech holds the speech fault rates, by flag name; noise the
	// recognition noise rate.
	speech map[string]*float64
	noise  float64
}

// speechFaultFlags are the speech fault flags, in the order of their
// options.
var speechFaultFlags = []struct{ name, usage string }{
	{"truncate-rate", "fraction of syntheses whose last sentence is cut after half its words"},
	{"replace-rate", "fraction of syntheses with a run of 3 to 5 words spoken as other words"},
	{"silence-rate", "fraction of syntheses answered with silence as long as the speech"},
	{"drop-half-rate", "fraction of syntheses whose second half of the words is not spoken"},
}

func (f *emulatorFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.latency, "latency", 0, "added before every API response")
	fs.Float64Var(&f.failRate, "fail-rate", 0, "fraction of API requests answered 500 or 503")
	fs.Float64Var(&f.rateLimit, "rate-limit", 0, "fraction of API requests answered 429 with Retry-After")
	fs.DurationVar(&f.retryAfter, "retry-after", time.Second, "Retry-After sent with injected 429s")
	fs.Float64Var(&f.rps, "rps", 0, "the service's rate limit in API requests per `second`: a token bucket answering 429 with Retry-After past it (0: none)")
	fs.IntVar(&f.rpsBurst, "rps-burst", 0, "requests the -rps bucket admits at once (0: a tenth of a second's worth, at least 2)")
	fs.Float64Var(&f.dropRate, "drop-rate", 0, "fraction of successful responses cut mid-body")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random choice")
	fs.StringVar(&f.profile, "profile", string(contract.DefaultProfile), "service to behave as: live or documented (the default is a manifest's)")
	fs.BoolVar(&f.liveQuirks, "live-quirks", false, "the same as -profile live (its earlier name)")
	fs.DurationVar(&f.urlTTL, "transcript-url-ttl", time.Hour, "validity of presigned transcript URLs")
	fs.StringVar(&f.keys, "keys", "", "comma-separated accepted API keys (empty: any non-empty key)")
	fs.Float64Var(&f.timeScale, "time-scale", 1, "speed-up of batch job progression (60: a minute per second)")
	fs.IntVar(&f.maxText, "max-text", 5000, "maximum synthesis text length in characters")
	fs.BoolVar(&f.noEspeak, "no-espeak", false, "never use espeak-ng, even when installed (synthetic waveform)")
	f.speech = map[string]*float64{}
	for _, sf := range speechFaultFlags {
		f.speech[sf.name] = fs.Float64(sf.name, 0, sf.usage+" (at most 1 with the other speech faults)")
	}
	fs.Float64Var(&f.noise, "noise-rate", 0, "fraction of the words of the emulator's own speech that its recognition mishears")
}

func (f *emulatorFlags) options() (emulator.Options, error) {
	for name, v := range map[string]float64{"fail-rate": f.failRate, "rate-limit": f.rateLimit, "drop-rate": f.dropRate} {
		if v < 0 || v > 1 {
			return emulator.Options{}, usageErrorf("-%s %v: must be between 0 and 1", name, v)
		}
	}
	if f.failRate+f.rateLimit > 1 {
		return emulator.Options{}, usageErrorf("-fail-rate plus -rate-limit must not exceed 1")
	}
	speech, err := f.speechRates()
	if err != nil {
		return emulator.Options{}, err
	}
	if f.rps != 0 && !(f.rps >= emulator.MinRPS && f.rps <= emulator.MaxRPS) {
		return emulator.Options{}, usageErrorf("-rps %v: must be 0 (no limit) or between %v and %v requests per second", f.rps, emulator.MinRPS, float64(emulator.MaxRPS))
	}
	if f.rpsBurst < 0 || f.rpsBurst > emulator.MaxBurst {
		return emulator.Options{}, usageErrorf("-rps-burst %d: must be between 0 (the default) and %d", f.rpsBurst, emulator.MaxBurst)
	}
	if f.timeScale <= 0 {
		return emulator.Options{}, usageErrorf("-time-scale %v: must be positive", f.timeScale)
	}
	switch f.profile {
	case "":
		f.profile = string(contract.DefaultProfile)
	case emulator.ProfileDocumented, emulator.ProfileLive:
	default:
		return emulator.Options{}, usageErrorf("-profile %s: must be documented or live", f.profile)
	}
	if f.liveQuirks && f.profile == emulator.ProfileDocumented {
		return emulator.Options{}, usageErrorf("-live-quirks is -profile live, which contradicts -profile documented")
	}
	var keys []string
	for _, k := range strings.Split(f.keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	return emulator.Options{
		Latency:          f.latency,
		FailRate:         f.failRate,
		RateLimit:        f.rateLimit,
		RetryAfter:       f.retryAfter,
		RPS:              f.rps,
		Burst:            f.rpsBurst,
		DropRate:         f.dropRate,
		Seed:             f.seed,
		Profile:          f.profile,
		LiveQuirks:       f.liveQuirks,
		TranscriptURLTTL: f.urlTTL,
		Keys:             keys,
		TimeScale:        f.timeScale,
		MaxText:          f.maxText,
		NoEspeak:         f.noEspeak,
		TruncateRate:     speech[0],
		ReplaceRate:      speech[1],
		SilenceRate:      speech[2],
		DropHalfRate:     speech[3],
		NoiseRate:        f.noise,
	}, nil
}

// speechRates checks the speech fault and noise rates and returns the
// former in the order of speechFaultFlags.
func (f *emulatorFlags) speechRates() ([]float64, error) {
	rates := make([]float64, len(speechFaultFlags))
	var sum float64
	for i, sf := range speechFaultFlags {
		if p := f.speech[sf.name]; p != nil {
			rates[i] = *p
		}
		if !(rates[i] >= 0 && rates[i] <= 1) {
			return nil, usageErrorf("-%s %v: must be between 0 and 1", sf.name, rates[i])
		}
		sum += rates[i]
	}
	if sum > 1+1e-9 { // 0.1+0.2+0.3+0.4 is a hair over 1 in floating point
		return nil, usageErrorf("-truncate-rate, -replace-rate, -silence-rate and -drop-half-rate add up to %v: must not exceed 1", sum)
	}
	if !(f.noise >= 0 && f.noise <= 1) {
		return nil, usageErrorf("-noise-rate %v: must be between 0 and 1", f.noise)
	}
	return rates, nil
}

func runEmulator(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "conversation" {
		return runEmulatorConversation(ctx, env, args[1:])
	}
	fs := newFlagSet(env, "emulator", emulatorUsage)
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	var ef emulatorFlags
	ef.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("emulator takes no arguments")
	}
	opts, err := ef.options()
	if err != nil {
		return err
	}
	run, err := emulator.Start(opts, *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "voxform emulator listening on %s (profile %s; stats: %s/_emulator/stats)\n", run.URL, opts.Served(), run.URL)
	fmt.Fprintln(env.Stdout, "audio served here is generated by the emulator, not the speech service")
	select {
	case <-ctx.Done():
	case <-run.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := run.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stop emulator: %w", err)
	}
	return nil
}
