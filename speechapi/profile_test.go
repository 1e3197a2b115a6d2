package speechapi_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// TestCheckProfile: an emulator on a loopback address that serves the
// other profile is a *ProfileMismatchError naming both; the same profile,
// a loopback service that names none, a service that is not there, and
// any address that is not loopback (where the real service is, and which
// is not asked at all) pass.
func TestCheckProfile(t *testing.T) {
	ctx := context.Background()
	for _, served := range []string{emulator.ProfileDocumented, emulator.ProfileLive} {
		s := emulator.New(emulator.Options{Profile: served})
		srv := httptest.NewServer(s)
		t.Cleanup(func() { srv.Close(); s.Close() })
		for _, speaks := range contract.Profiles {
			err := speechapi.CheckProfile(ctx, nil, srv.URL, speaks)
			if string(speaks) == served {
				if err != nil {
					t.Errorf("%s emulator, %s client: %v", served, speaks, err)
				}
				continue
			}
			var pe *speechapi.ProfileMismatchError
			if !errors.As(err, &pe) || pe.Serves != served || pe.Speaks != speaks || pe.Host != strings.TrimPrefix(srv.URL, "http://") {
				t.Fatalf("%s emulator, %s client: %v", served, speaks, err)
			}
			want := "check the service profile: the emulator at " + pe.Host + " serves the " + served + " profile, and voxform speaks " + string(speaks)
			if err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		}
	}
	var asked []http.Header
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Header.Clone())
		http.NotFound(w, r)
	}))
	defer plain.Close()
	if err := speechapi.CheckProfile(ctx, nil, plain.URL, contract.ProfileLive); err != nil || len(asked) != 1 {
		t.Errorf("a loopback service that names no profile: %v (%d requests)", err, len(asked))
	}
	if len(asked) == 1 && asked[0].Get(speechapi.HeaderAPIKey) != "" {
		t.Error("the probe carried an API key")
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if err := speechapi.CheckProfile(ctx, nil, dead.URL, contract.ProfileLive); err != nil {
		t.Errorf("a service that is not there: %v", err)
	}
	never := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("%s asked: only a loopback address may be an emulator", r.URL)
		return nil, errors.New("no")
	})}
	for _, base := range []string{contract.LiveBaseURL, "https://speech.example.com", "http://127.example.com"} {
		if err := speechapi.CheckProfile(ctx, never, base, contract.ProfileLive); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestProfileMismatchQuotesAStrangeProfile: a profile name this voxform
// does not know is quoted, characters that would rearrange the terminal's
// line escaped (HTTP itself carries no control characters) and its length
// cut.
func TestProfileMismatchQuotesAStrangeProfile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(speechapi.HeaderEmulatorProfile, "staging\u202e"+strings.Repeat("x", 100))
	}))
	defer srv.Close()
	err := speechapi.CheckProfile(context.Background(), nil, srv.URL, contract.ProfileLive)
	if err == nil || strings.ContainsRune(err.Error(), 0x202e) || !strings.Contains(err.Error(), `"staging\u202e`) ||
		!strings.Contains(err.Error(), `...", which this voxform does not know,`) || len(err.Error()) > 200 {
		t.Errorf("error %q", err)
	}
}

// TestCheckProfileOfASilentHost: a loopback host that takes the connection
// and never answers says nothing, within the caller's deadline when it is
// sooner than ProfileProbeTimeout (voxform passes service.timeout).
func TestCheckProfileOfASilentHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := speechapi.CheckProfile(ctx, nil, "http://"+ln.Addr().String(), contract.ProfileLive); err != nil {
		t.Errorf("a silent host: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v with a deadline of 200ms", took)
	}
}
