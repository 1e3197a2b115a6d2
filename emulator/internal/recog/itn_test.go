package recog

import "testing"

// conformance: STT-009, STT-010, STT-011, STT-012, STT-013, STT-014, STT-015, STT-016, STT-017,
// STT-018, STT-019, STT-020, STT-021, STT-022, STT-024, STT-026, STT-027
func TestITN(t *testing.T) {
	tests := []struct {
		lang   string
		native bool
		in     string
		want   string
	}{
		{"en-IN", false, "I have twenty four apples and nothing else", "I have 24 apples and nothing else"},
		{"en-IN", false, "one lakh twenty three thousand four hundred and fifty six people", "1,23,456 people"},
		{"en-IN", false, "twelve crore", "12,00,00,000"},
		{"en-IN", false, "born in nineteen ninety nine.", "born in 1999."},
		{"en-IN", false, "in nineteen hundred ninety nine", "in 1999"},
		{"en-IN", false, "the twenty first floor", "the 21st floor"},
		{"en-IN", false, "the third time", "the 3rd time"},
		{"en-IN", false, "pay five hundred rupees now", "pay ₹500 now"},
		{"en-IN", false, "ten rupees and fifty paise", "₹10.50"},
		{"en-IN", false, "two lakh rupees", "₹2,00,000"},
		{"en-IN", false, "on fifteenth of august twenty twenty four", "on 15th August 2024"},
		{"en-IN", false, "at seven thirty in the evening", "at 19:30"},
		{"en-IN", false, "ten at night", "22:00"},
		{"en-IN", false, "six in the morning", "06:00"},
		{"en-IN", false, "call nine eight seven six five four three two one zero", "call 9876543210"},
		{"en-IN", false, "pin five six zero double zero one", "pin 560001"},
		{"en-IN", false, "triple nine", "999"},
		{"en-IN", false, "two or three days", "two or three days"},
		{"en-IN", true, "five hundred rupees", "₹500"},
		{"hi-IN", false, "मुझे पांच सौ रुपये दो", "मुझे ₹500 दो"},
		{"hi-IN", true, "मुझे पांच सौ रुपये दो", "मुझे ₹५०० दो"},
		{"hi-IN", false, "दो या तीन दिन", "दो या तीन दिन"},
		{"hi-IN", false, "पंद्रह अगस्त दो हज़ार चौबीस को", "15 अगस्त 2024 को"},
		{"hi-IN", false, "शाम सात बजे आना", "19:00 आना"},
		{"hi-IN", false, "दो लाख रुपये", "₹2,00,000"},
		{"hi-IN", false, "बात करो तो order of twenty five rupees", "बात करो तो order of ₹25"},
		{"hi-IN", false, "कल सुबह नौ बजे twenty five rupees और दस रुपये", "कल 09:00 ₹25 और ₹10"},
		{"en-IN", false, "fifteen august", "15 August"},
		{"ta-IN", true, "வணக்கம் நன்றி", "வணக்கம் நன்றி"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := itn(tc.in, tc.lang, tc.native); got != tc.want {
				t.Errorf("itn(%q, %s, %v) = %q, want %q", tc.in, tc.lang, tc.native, got, tc.want)
			}
		})
	}
}

// TestTextOptionDefaults: a REST or older batch form that leaves format
// and itn_native_numerals out gets verbatim text, and with
// format=transcribe the digits 0 to 9.
//
// conformance: STT-008, STT-023
func TestTextOptionDefaults(t *testing.T) {
	const spoken = "मुझे दो लाख रुपये मिले"
	for _, tc := range []struct {
		fields map[string][]string
		want   string
	}{
		{map[string][]string{"language_code": {"hi-IN"}}, spoken},
		{map[string][]string{"language_code": {"hi-IN"}, "format": {"transcribe"}}, "मुझे ₹2,00,000 मिले"},
	} {
		for _, legacy := range []bool{false, true} {
			o, err := parseTextOptions(&form{fields: tc.fields}, legacy)
			if err != nil || o.render(spoken) != tc.want {
				t.Errorf("fields %v (older batch %v): %v, %q, want %q", tc.fields, legacy, err, o.render(spoken), tc.want)
			}
		}
	}
}

func TestIndianGroup(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 100000: "1,00,000", 12345678: "1,23,45,678"} {
		if got := indianGroup(v); got != want {
			t.Errorf("indianGroup(%d) = %q, want %q", v, got, want)
		}
	}
}

// FuzzITN checks that ITN never panics, whatever the text.
func FuzzITN(f *testing.F) {
	f.Add("five hundred rupees and ten paise", "en-IN", true)
	f.Add("दो या तीन", "hi-IN", false)
	f.Add("double", "en-IN", false)
	f.Add("and and or nineteen", "hi-IN", true)
	f.Fuzz(func(t *testing.T, text, lang string, native bool) {
		_ = itn(text, lang, native)
	})
}
