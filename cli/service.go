package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/speechapi"
)

// serviceFlags are the flags that choose which service a command talks to.
type serviceFlags struct {
	emulate bool
}

func (f *serviceFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.emulate, "emulate", false, "run against the built-in emulator on a loopback port (no account needed; audio is generated locally)")
}

// serviceConn is a ready client plus what must be cleaned up after.
type serviceConn struct {
	client   *speechapi.Client
	baseURL  string
	emulated bool
	// documentedPolls polls a loopback service at the documented
	// intervals (VOXFORM_POLL=documented).
	documentedPolls bool
	stop            func()
}

// emulateOptions are the in-process emulator's settings: batch jobs move a
// hundred times faster than the real service so that the README's example
// finishes in seconds.
var emulateOptions = emulator.Options{Seed: 1, TimeScale: 100}

// target is the service a command will talk to, as the manifest and the
// environment say: where, the API key (never printed), and whether batch
// jobs are polled at the documented intervals even on a loopback address.
type target struct {
	keyVar, key     string
	base, wsBase    string
	profile         contract.Profile
	documentedPolls bool
}

// pollVar is the environment variable that makes voxform poll a service
// on a loopback address (an emulator) at the documented intervals, as it
// polls any other: VOXFORM_POLL=documented. Unset, a loopback service is
// polled every 50 ms.
const pollVar = "VOXFORM_POLL"

// serviceTarget resolves the service of the manifest's service block and
// the environment (VOXFORM_BASE_URL, the API key variable, VOXFORM_POLL):
// the live profile's base URL when none is set. A VOXFORM_POLL other than
// documented is an error; so is, without -emulate, a missing key or base
// URL: found before anything is shown or done.
func serviceTarget(env *Env, m *manifest.Manifest, flags serviceFlags) (target, error) {
	svc := m.Service
	t := target{keyVar: svc.APIKeyEnv, base: svc.BaseURL, wsBase: svc.WSBaseURL}
	t.profile, _ = contract.ParseProfile(string(svc.Profile))
	if t.keyVar == "" {
		t.keyVar = "VOXFORM_API_KEY"
	}
	t.key = env.Getenv(t.keyVar)
	if v := env.Getenv("VOXFORM_BASE_URL"); v != "" {
		t.base, t.wsBase = v, ""
	}
	if t.base == "" && t.profile == contract.ProfileLive {
		t.base = contract.LiveBaseURL
	}
	switch v := env.Getenv(pollVar); v {
	case "":
	case "documented":
		t.documentedPolls = true
	default:
		return t, withHint(fmt.Errorf("%s is %q, which is not a polling mode", pollVar, v),
			fmt.Sprintf("%s=documented polls an emulator on a loopback address at the documented intervals; unset, it is polled every 50 ms", pollVar))
	}
	if flags.emulate {
		return t, nil
	}
	if t.key == "" {
		return t, withHint(fmt.Errorf("the API key variable %s is not set", t.keyVar),
			fmt.Sprintf("export %s=... (the key is never written to state, plans or logs), or try -emulate", t.keyVar))
	}
	if t.base == "" {
		return t, withHint(fmt.Errorf("no service base url"), "set service.base_url in the manifest or VOXFORM_BASE_URL")
	}
	return t, nil
}

// checkService is serviceTarget for a command about to show a plan that
// calls the service, with one question more: an emulator on a loopback
// address must serve the profile the manifest speaks (every synthesis of
// a model the two profiles name differently would be refused). Asked
// before the plan is shown, so nothing is confirmed or billed in vain;
// the in-process emulator of -emulate is started with the manifest's
// profile and is not asked.
func checkService(ctx context.Context, env *Env, m *manifest.Manifest, flags serviceFlags) error {
	t, err := serviceTarget(env, m, flags)
	if err != nil || flags.emulate {
		return err
	}
	if d := m.Service.Timeout; d > 0 { // no host stays silent longer (service.timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	err = speechapi.CheckProfile(ctx, nil, t.base, t.profile)
	var pe *speechapi.ProfileMismatchError
	if !errors.As(err, &pe) {
		return err
	}
	var speak string
	switch pos, set := m.Service.Fields["profile"]; {
	case set && pos.File == "VOXFORM_PROFILE":
		err = fmt.Errorf("%w (VOXFORM_PROFILE)", err)
		speak = "VOXFORM_PROFILE=" + pe.Serves
	case set:
		err = fmt.Errorf("%w (service.profile)", err)
		speak = "service.profile: " + pe.Serves + " in the manifest"
	default:
		err = fmt.Errorf("%w (the default)", err)
		speak = "profile: " + pe.Serves + " in the manifest's service block"
	}
	if !slices.Contains(contract.Profiles, contract.Profile(pe.Serves)) {
		return withHint(err, fmt.Sprintf("start the emulator with 'voxform emulator -profile %s'", t.profile))
	}
	return withHint(err, fmt.Sprintf("start the emulator with 'voxform emulator -profile %s', or set %s", t.profile, speak))
}

// connect builds the speech service client for the service serviceTarget
// resolves, or for the in-process emulator with -emulate. The API key is
// handed only to the client.
func connect(env *Env, m *manifest.Manifest, flags serviceFlags, httpClient *http.Client, note io.Writer) (*serviceConn, error) {
	svc := m.Service
	t, err := serviceTarget(env, m, flags)
	if err != nil {
		return nil, err
	}
	key, base, wsBase := t.key, t.base, t.wsBase
	conn := &serviceConn{stop: func() {}}
	if flags.emulate {
		opts := emulateOptions
		opts.ExtraVoices = m.Catalog.Voices // the manifest's catalog extends the emulator's, too
		opts.Profile = string(t.profile)    // it behaves as the service the manifest speaks to
		run, err := emulator.Start(opts, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		base, wsBase = run.URL, ""
		conn.emulated = true
		conn.stop = func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = run.Shutdown(ctx)
		}
		if key == "" {
			key = "emulator-key"
		}
		fmt.Fprintf(note, "voxform: the built-in emulator is listening at %s\n", run.URL)
	}
	retries := svc.Retries
	if _, set := svc.Fields["retries"]; set && retries == 0 {
		retries = -1 // retries: 0 says none; unset is the client's default
	}
	client, err := speechapi.New(speechapi.Config{
		Profile:      t.profile,
		BaseURL:      base,
		WSBaseURL:    wsBase,
		APIKey:       key,
		Timeout:      svc.Timeout,
		Retries:      retries,
		Paths:        svc.Paths,
		HTTPClient:   httpClient,
		RealtimePace: svc.RealtimePace,
		Breaker:      speechapi.NewBreaker(speechapi.DefaultBreakerThreshold),
	})
	if err != nil {
		conn.stop()
		return nil, err
	}
	conn.client, conn.baseURL, conn.documentedPolls = client, base, t.documentedPolls
	return conn, nil
}
