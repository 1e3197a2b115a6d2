package speechapi

import (
	"testing"
	"time"
)

// TestPollIntervalMinimums checks that a real service is never polled
// faster than documented, while a loopback emulator may be.
// conformance: OB-035, BJ-100
func TestPollIntervalMinimums(t *testing.T) {
	tests := []struct {
		base    string
		asked   time.Duration
		minimum time.Duration
		want    time.Duration
	}{
		{"https://api.example.com", time.Millisecond, LegacyPollInterval, 60 * time.Second},
		{"https://api.example.com", 0, JobPollInterval, 10 * time.Second},
		{"https://api.example.com", time.Second, JobPollIntervalMany, 30 * time.Second},
		{"https://api.example.com", 2 * time.Minute, JobPollInterval, 2 * time.Minute},
		{"http://127.0.0.1:8080", time.Millisecond, LegacyPollInterval, time.Millisecond},
		{"http://localhost:8080", 0, JobPollInterval, 10 * time.Second},
	}
	for _, tc := range tests {
		c, err := New(Config{BaseURL: tc.base, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.pollInterval(tc.asked, tc.minimum); got != tc.want {
			t.Errorf("%s asked %v min %v: %v, want %v", tc.base, tc.asked, tc.minimum, got, tc.want)
		}
	}
}
