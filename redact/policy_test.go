package redact_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/voxform/voxform/redact"
)

func TestNewPolicy(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"mobile", "aadhaar", "card"}, "aadhaar,card,mobile"},
		{[]string{"Card", " mobile ", "card"}, "card,mobile"},
		{[]string{"all"}, "aadhaar,bank_account,card,email,ifsc,mobile,pan,upi"},
		{[]string{"email", "ALL"}, "aadhaar,bank_account,card,email,ifsc,mobile,pan,upi"},
		{nil, ""},
	} {
		p, err := redact.NewPolicy(tc.in)
		if err != nil {
			t.Fatalf("%v: %v", tc.in, err)
		}
		if got := p.String(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.in, got, tc.want)
		}
	}
	_, err := redact.NewPolicy([]string{"mobile", "passport"})
	if err == nil || !strings.Contains(err.Error(), `"passport"`) || !strings.Contains(err.Error(), "bank_account") {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestPolicyCovers(t *testing.T) {
	all, some, none := mustPolicy(t, "all"), mustPolicy(t, "mobile", "card"), mustPolicy(t)
	for _, tc := range []struct {
		p, q redact.Policy
		want bool
	}{
		{all, some, true}, {some, all, false}, {some, some, true}, {some, none, true}, {none, some, false},
		{mustPolicy(t, "mobile", "upi"), some, false},
	} {
		if got := tc.p.Covers(tc.q); got != tc.want {
			t.Errorf("%q covers %q: %v, want %v", tc.p, tc.q, got, tc.want)
		}
	}
}

func TestKinds(t *testing.T) {
	var names []string
	for _, k := range redact.AllKinds() {
		names = append(names, k.Placeholder())
		if got, err := redact.ParseKind(string(k)); got != k || err != nil {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	want := []string{"[MOBILE]", "[AADHAAR]", "[PAN]", "[CARD]", "[BANK_ACCOUNT]", "[IFSC]", "[UPI]", "[EMAIL]"}
	if d := cmp.Diff(want, names); d != "" {
		t.Error(d)
	}
}

// TestCheckDigits: published examples of Verhoeff's and Luhn's schemes.
func TestCheckDigits(t *testing.T) {
	// Verhoeff's own example: 236 gets 3; and 12345 gets 1.
	if !redact.Verhoeff("2363") || redact.Verhoeff("2364") || redact.VerhoeffDigit("236") != '3' || redact.VerhoeffDigit("12345") != '1' {
		t.Error("Verhoeff")
	}
	// Luhn: 79927398713 (the textbook number), the test Visa card.
	if !redact.Luhn("79927398713") || redact.Luhn("79927398710") || !redact.Luhn("4111111111111111") || redact.LuhnDigit("7992739871") != '3' {
		t.Error("Luhn")
	}
	for _, s := range []string{"", "12a4", "٣"} {
		if redact.Verhoeff(s) || redact.Luhn(s) {
			t.Errorf("%q passes", s)
		}
	}
}

func TestFindInSegments(t *testing.T) {
	p := mustPolicy(t, "mobile", "email")
	segs := []string{"my number is nine eight seven six five", "four three two one zero and", "mail a@b.in"}
	got := p.FindInSegments(segs)
	var red []string
	for i, s := range segs {
		red = append(red, redact.Replace(s, got[i]))
	}
	want := []string{"my number is [MOBILE]", "[MOBILE] and", "mail [EMAIL]"}
	if d := cmp.Diff(want, red); d != "" {
		t.Errorf("redacted segments (-want +got):\n%s", d)
	}
	// A number ending one segment and another starting the next make one
	// run that is no identifier; each segment alone still has its own.
	segs = []string{"call me on 9876543210", "2 minutes later, aadhaar 2345 6789 0124"}
	got = mustPolicy(t, "all").FindInSegments(segs)
	red = red[:0]
	for i, s := range segs {
		red = append(red, redact.Replace(s, got[i]))
	}
	want = []string{"call me on [MOBILE]", "2 minutes later, aadhaar [AADHAAR]"}
	if d := cmp.Diff(want, red); d != "" {
		t.Errorf("redacted segments (-want +got):\n%s", d)
	}
	if got := p.FindInSegments(nil); len(got) != 0 {
		t.Errorf("no segments: %v", got)
	}
}

func TestReplaceIgnoresBadSpans(t *testing.T) {
	text := "abcdef"
	spans := []redact.Span{{redact.PAN, 1, 3}, {redact.PAN, 2, 4}, {redact.UPI, 5, 9}, {redact.UPI, 4, 4}, {redact.Email, -1, 2}}
	if got := redact.Replace(text, spans); got != "a[PAN]def" {
		t.Errorf("got %q", got)
	}
}
