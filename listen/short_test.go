package listen

import (
	"strings"
	"testing"
)

// TestDefaultsCatchShortTextsAndNumbers: at the defaults a wrong word in
// a prompt of one or two words, and a wrong number anywhere, fail; the
// noise allowance is for isolated words in longer texts.
func TestDefaultsCatchShortTextsAndNumbers(t *testing.T) {
	long := "please hold the line while we connect your call to the next available member of our support team"
	for _, tt := range []struct{ sent, heard, failing string }{
		{"Yes", "No", MeasureWER},
		{"Goodbye.", "Hello.", MeasureWER},
		{"Press one", "Press two", MeasureNumbers},
		{"Your balance is ₹1,500.", "Your balance is ₹9,999.", MeasureNumbers},
		{"Your OTP is 4 8 1 5 9 2", "Your OTP is 7 7 7 7 7 7", MeasureNumbers},
		{"Call 9876543210 now", "Call 1234567890 now", MeasureNumbers},
		{"twenty five thousand rupees", "ninety thousand rupees", MeasureNumbers},
		{long + " at 5 pm", long + " at 6 pm", MeasureNumbers},
		{strings.Repeat("twenty five ", 2000), strings.Repeat("twenty five hundred ", 1333), MeasureNumbers},
	} {
		res := mustCheck(t, tt.sent, tt.heard)
		if res.Pass || !strings.Contains(strings.Join(res.Failures, "\n"), tt.failing+":") {
			t.Errorf("sent %.40q, heard %.40q: pass %v, failures %q, want %s", tt.sent, tt.heard, res.Pass, res.Failures, tt.failing)
		}
	}
	if res := mustCheck(t, long, strings.Replace(long, "connect", "correct", 1)); !res.Pass {
		t.Errorf("one misheard word in %d: %q", len(strings.Fields(long)), res.Failures)
	}
}

// TestCheckBoundsBytes: a side over MaxTextBytes is refused before it is
// normalized, naming the limit.
func TestCheckBoundsBytes(t *testing.T) {
	_, err := Check("hello", strings.Repeat("a", MaxTextBytes+1), DefaultThresholds())
	if err == nil || !strings.Contains(err.Error(), "listen.MaxTextBytes") || !strings.Contains(err.Error(), "transcript") {
		t.Fatalf("Check of an oversized transcript: %v", err)
	}
}
