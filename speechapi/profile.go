package speechapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/voxform/voxform/contract"
)

// HeaderEmulatorProfile is the header in which an emulator names the
// service profile it serves (live or documented) on every answer. The
// service itself sends none: its absence says nothing.
const HeaderEmulatorProfile = "X-Emulator-Profile"

// emulatorProfilePath is the emulator's discovery route. Any answer of an
// emulator carries HeaderEmulatorProfile; this one costs nothing and needs
// no API key.
const emulatorProfilePath = "/_emulator/profile"

// ProfileProbeTimeout bounds CheckProfile's one request: a service that
// has not answered by then is taken to say nothing.
const ProfileProbeTimeout = 5 * time.Second

// maxProfileName is how much of a profile name an error quotes.
const maxProfileName = 40

// ProfileMismatchError is an emulator that serves another profile than the
// one voxform speaks: every synthesis of a model the two name differently
// would be refused.
type ProfileMismatchError struct {
	Host   string           // the emulator's host and port
	Speaks contract.Profile // the profile voxform speaks
	Serves string           // the profile the emulator named
}

// Error names both profiles.
func (e *ProfileMismatchError) Error() string {
	serves := e.Serves
	if !slices.Contains(contract.Profiles, contract.Profile(serves)) {
		if len(serves) > maxProfileName {
			serves = serves[:maxProfileName] + "..."
		}
		serves = strconv.Quote(serves) + ", which this voxform does not know,"
	}
	return fmt.Sprintf("check the service profile: the emulator at %s serves the %s profile, and voxform speaks %s", e.Host, serves, e.Speaks)
}

// CheckProfile asks the service at base which profile it serves when base
// is a loopback address (the only place voxform reaches an emulator over
// plain HTTP, and never the real service), and returns a
// *ProfileMismatchError when it names another than speaks. It sends one
// GET /_emulator/profile without the API key, within ProfileProbeTimeout
// (or ctx's deadline, when sooner), through hc's transport (nil: the
// default one) with no redirect followed. A service
// that does not answer, or answers without HeaderEmulatorProfile, passes:
// only an emulator says which profile it serves, and the calls that follow
// report a service that is not there.
func CheckProfile(ctx context.Context, hc *http.Client, base string, speaks contract.Profile) error {
	u, err := url.Parse(base)
	if err != nil || !contract.IsLoopback(u.Host) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ProfileProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+emulatorProfilePath, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", "voxform")
	probe := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if hc != nil {
		probe.Transport = hc.Transport
	}
	resp, err := probe.Do(req)
	if err != nil {
		return nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	resp.Body.Close()
	serves := resp.Header.Get(HeaderEmulatorProfile)
	if serves == "" || serves == string(speaks) {
		return nil
	}
	return &ProfileMismatchError{Host: u.Host, Speaks: speaks, Serves: serves}
}
