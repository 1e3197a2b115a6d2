package executor

import (
	"testing"
	"time"

	"github.com/voxform/voxform/speechapi"
)

// Against a real service the documented polling minimums hold whatever
// PollInterval says; only a loopback service may be polled faster.
// conformance: OB-035, BJ-100
func TestPollIntervalHonoursDocumentedMinimum(t *testing.T) {
	client := func(base string) *speechapi.Client {
		c, err := speechapi.New(speechapi.Config{BaseURL: base, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	remote, local := client("https://speech.example.com"), client("http://127.0.0.1:9")
	for _, c := range []struct {
		cl         *speechapi.Client
		documented time.Duration
		override   time.Duration
		want       time.Duration
	}{
		{remote, speechapi.JobPollInterval, 0, speechapi.JobPollInterval},
		{remote, speechapi.JobPollInterval, time.Millisecond, speechapi.JobPollInterval},
		{remote, speechapi.JobPollIntervalMany, time.Second, 30 * time.Second},
		{remote, speechapi.JobPollInterval, time.Minute, time.Minute},
		{remote, legacyPollInterval, time.Millisecond, 60 * time.Second},
		{local, speechapi.JobPollInterval, 0, 50 * time.Millisecond},
		{local, legacyPollInterval, time.Millisecond, time.Millisecond},
	} {
		b := &batchOp{client: c.cl, pollOverride: c.override}
		if got := b.pollInterval(c.documented); got != c.want {
			t.Errorf("%s with PollInterval %v: %v, want %v", c.cl.BaseURL(), c.override, got, c.want)
		}
	}
}
