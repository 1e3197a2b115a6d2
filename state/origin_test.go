package state

import "testing"

// TestOriginLabel: a table cell names the service's outputs with
// nothing, a recording's by its request, a take by 12 digits.
func TestOriginLabel(t *testing.T) {
	take := "0123456789abcdef0123"
	for _, tc := range []struct {
		r    Resource
		want string
		path string
	}{
		{Resource{}, "", ""},
		{Resource{Origin: OriginImported}, "imported", ""},
		{*(&Resource{Origin: OriginTake}).WithDetails(Details{Take: take}), "take 0123456789ab", ""},
		{Resource{Origin: OriginRecorded, Request: map[string]any{"recorded": map[string]any{"path": "studio/a.wav"}}}, "recorded", "studio/a.wav"},
		{Resource{Origin: OriginImported, Request: map[string]any{"recorded": map[string]any{"path": "studio/a.wav"}}}, "imported", "studio/a.wav"},
		{*(&Resource{Origin: OriginTake, Request: map[string]any{"recorded": map[string]any{"path": "studio/a.wav"}}}).WithDetails(Details{Take: take}), "take 0123456789ab", "studio/a.wav"},
	} {
		if got := tc.r.OriginLabel(); got != tc.want {
			t.Errorf("%+v: label %q, want %q", tc.r, got, tc.want)
		}
		if got := tc.r.RecordingPath(); got != tc.path {
			t.Errorf("%+v: recording %q, want %q", tc.r, got, tc.path)
		}
	}
}
