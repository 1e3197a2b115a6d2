package executor

import (
	"testing"
	"time"

	"github.com/voxform/voxform/contract"

	"github.com/voxform/voxform/speechapi"
)

func pollClient(t *testing.T, base string) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: base, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Against a real service the documented polling minimums hold whatever
// PollInterval says; only a loopback service may be polled faster, and
// not with DocumentedPolling.
// conformance: OB-035, BJ-100
func TestPollIntervalHonoursDocumentedMinimum(t *testing.T) {
	remote, local := pollClient(t, "https://speech.example.com"), pollClient(t, "http://127.0.0.1:9")
	for _, c := range []struct {
		cl         *speechapi.Client
		asLive     bool
		documented time.Duration
		override   time.Duration
		want       time.Duration
	}{
		{remote, false, speechapi.JobPollInterval, 0, speechapi.JobPollInterval},
		{remote, false, speechapi.JobPollInterval, time.Millisecond, speechapi.JobPollInterval},
		{remote, false, speechapi.JobPollIntervalMany, time.Second, 30 * time.Second},
		{remote, false, speechapi.JobPollInterval, time.Minute, time.Minute},
		{remote, false, legacyPollInterval, time.Millisecond, 60 * time.Second},
		{local, false, speechapi.JobPollInterval, 0, 50 * time.Millisecond},
		{local, false, legacyPollInterval, time.Millisecond, time.Millisecond},
		{local, true, speechapi.JobPollInterval, 0, 10 * time.Second},
		{local, true, speechapi.JobPollIntervalMany, time.Millisecond, 30 * time.Second},
		{local, true, legacyPollInterval, 0, 60 * time.Second},
		{local, true, speechapi.JobPollInterval, time.Minute, time.Minute},
		{remote, true, speechapi.JobPollInterval, 0, 10 * time.Second},
	} {
		b := &batchOp{client: c.cl, pollOverride: c.override, documentedPolls: c.asLive}
		if got := b.pollInterval(c.documented); got != c.want {
			t.Errorf("%s with PollInterval %v, DocumentedPolling %v: %v, want %v", c.cl.BaseURL(), c.override, c.asLive, got, c.want)
		}
	}
}

// With DocumentedPolling (VOXFORM_POLL=documented) an emulator on a
// loopback address is polled as the service is: a job of 100 files or
// more every 30 s, a smaller one every 10 s; without it, every 50 ms.
func TestDocumentedPollingOnLoopback(t *testing.T) {
	local := pollClient(t, "http://127.0.0.1:9")
	for _, c := range []struct {
		asLive bool
		files  int
		want   time.Duration
	}{
		{true, 100, 30 * time.Second},
		{true, 250, 30 * time.Second},
		{true, 99, 10 * time.Second},
		{true, 1, 10 * time.Second},
		{false, 100, 50 * time.Millisecond},
		{false, 1, 50 * time.Millisecond},
	} {
		b := &batchOp{client: local, documentedPolls: c.asLive}
		if got := b.pollInterval(contract.JobPollIntervalOf(c.files)); got != c.want {
			t.Errorf("job of %d files, DocumentedPolling %v: polled every %v, want %v", c.files, c.asLive, got, c.want)
		}
	}
}
