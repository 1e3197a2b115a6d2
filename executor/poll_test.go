package executor

import (
	"testing"
	"time"

	"github.com/voxform/voxform/speechapi"
)

// Against a real service the documented polling minimums hold whatever
// PollInterval says; only a loopback service may be polled faster.
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
		cl       *speechapi.Client
		override time.Duration
		want     time.Duration
	}{
		{remote, 0, speechapi.JobPollInterval},
		{remote, time.Millisecond, speechapi.JobPollInterval},
		{remote, time.Minute, time.Minute},
		{local, 0, 50 * time.Millisecond},
		{local, time.Millisecond, time.Millisecond},
	} {
		x := &run{opts: Options{Client: c.cl, PollInterval: c.override}}
		if got := x.pollInterval(speechapi.JobPollInterval); got != c.want {
			t.Errorf("%s with PollInterval %v: %v, want %v", c.cl.BaseURL(), c.override, got, c.want)
		}
	}
}
