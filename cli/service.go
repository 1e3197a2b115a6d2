package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/speechapi"
)

// EmulatorBaseLabel is what state and outputs record as the service when
// work was done by the built-in emulator.
const EmulatorBaseLabel = "emulator"

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
	stop     func()
}

// emulateOptions are the in-process emulator's settings: batch jobs move a
// hundred times faster than the real service so that the README's example
// finishes in seconds.
var emulateOptions = emulator.Options{Seed: 1, TimeScale: 100}

// connect builds the speech service client from the manifest's service
// block, the environment (VOXFORM_BASE_URL, the API key variable) and
// -emulate. The API key is read here and handed only to the client.
func connect(env *Env, m *manifest.Manifest, flags serviceFlags, httpClient *http.Client, note io.Writer) (*serviceConn, error) {
	svc := m.Service
	keyVar := svc.APIKeyEnv
	if keyVar == "" {
		keyVar = "VOXFORM_API_KEY"
	}
	key := env.Getenv(keyVar)
	conn := &serviceConn{stop: func() {}}
	base, wsBase := svc.BaseURL, svc.WSBaseURL
	if v := env.Getenv("VOXFORM_BASE_URL"); v != "" {
		base, wsBase = v, ""
	}
	if flags.emulate {
		opts := emulateOptions
		opts.ExtraVoices = m.Catalog.Voices // the manifest's catalog extends the emulator's, too
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
	if key == "" {
		conn.stop()
		return nil, withHint(fmt.Errorf("the API key variable %s is not set", keyVar),
			fmt.Sprintf("export %s=... (the key is never written to state, plans or logs), or try -emulate", keyVar))
	}
	if base == "" {
		conn.stop()
		return nil, withHint(fmt.Errorf("no service base url"), "set service.base_url in the manifest or VOXFORM_BASE_URL")
	}
	retries := svc.Retries
	if _, set := svc.Fields["retries"]; set && retries == 0 {
		retries = -1 // retries: 0 says none; unset is the client's default
	}
	client, err := speechapi.New(speechapi.Config{
		BaseURL:    base,
		WSBaseURL:  wsBase,
		APIKey:     key,
		Timeout:    svc.Timeout,
		Retries:    retries,
		Paths:      svc.Paths,
		HTTPClient: httpClient,
		Breaker:    speechapi.NewBreaker(speechapi.DefaultBreakerThreshold),
	})
	if err != nil {
		conn.stop()
		return nil, err
	}
	conn.client, conn.baseURL = client, base
	return conn, nil
}
