package corpus

import (
	"math/rand/v2"
	"strings"

	"github.com/voxform/voxform/redact"
)

// lookAlike adds the f-th kind of look-alike: a number or code that
// resembles personal data and must be left as it is.
func (b *builder) lookAlike(r *rand.Rand, f int) {
	switch f % 11 {
	case 0:
		b.orderNumber(r, f)
	case 1:
		d := invalidAadhaar(r)
		v, form := numberForm(r, d, []int{4, 4, 4}, f/11)
		b.add(b.template(r, templates[redact.Aadhaar]), v, redact.Aadhaar, true, "invalid check digit, ", form)
	case 2:
		v, form := numberForm(r, cardNumber(r, false), []int{4, 4, 4, 4}, f/11)
		b.add(b.template(r, templates[redact.Card]), v, redact.Card, true, "invalid check digit, ", form)
	case 3, 4:
		b.amountClause(r, f)
	case 5:
		b.add(b.template(r, dates), pick(r, []string{"12/05/2024", "15-08-1947", "26-01-2025", "2024-03-31"}), redact.Mobile, true, "date")
	case 6:
		b.add(b.template(r, times), pick(r, []string{"10:30", "9:45", "18:05"}), redact.Mobile, true, "time")
	case 7:
		b.add(b.template(r, pins), digits(r, 6, "123456789"), redact.Mobile, true, "PIN code")
	case 8:
		v, form := codeForm(r, panValue(r, false), []int{5, 9}, f/11)
		b.add(b.template(r, templates[redact.PAN]), v, redact.PAN, true, "no holder type, ", form)
	case 9:
		v, form := codeForm(r, ifscValue(r, false), []int{4}, f/11)
		b.add(b.template(r, templates[redact.IFSC]), v, redact.IFSC, true, "no zero, ", form)
	default:
		b.add(b.template(r, handles), "@"+pick(r, []string{"voxform", "bank_help", "care"}), redact.UPI, true, "social handle")
	}
}

var (
	orders = []clause{
		{"en", "your order number is {}"}, {"en", "ticket {} has been raised"}, {"en", "reference number {} is noted"},
		{"hi", "आपका ऑर्डर नंबर {} है"}, {"hi", "टिकट संख्या {} दर्ज है"},
		{"hi-en", "order number {} hai"}, {"hi-en", "complaint number {} note kar lijiye"},
	}
	amounts = []clause{
		{"en", "the amount is ₹{}"}, {"en", "I paid Rs. {} yesterday"}, {"en", "{} rupees only"},
		{"hi", "{} रुपये जमा करें"}, {"hi", "₹{} का भुगतान हुआ"},
		{"hi-en", "{} rupaye nahi, {} rupees bhejo"}, {"hi-en", "Rs {} ka payment hua"},
	}
	dates = []clause{
		{"en", "it was on {}"}, {"hi", "दिनांक {} को"}, {"hi-en", "date {} thi"},
	}
	times = []clause{
		{"en", "call back at {}"}, {"hi", "सुबह {} बजे"}, {"hi-en", "{} baje call karna"},
	}
	pins = []clause{
		{"en", "the pin code is {}"}, {"hi", "पिन कोड {} है"}, {"hi-en", "pin code {} hai"},
	}
	handles = []clause{
		{"en", "follow us at {}"}, {"hi", "ट्विटर पर {} देखें"}, {"hi-en", "twitter pe {} dekho"},
	}
)

// orderNumber: digits of a length no identifier has without a cue
// word, or of ten that no mobile number starts with, written or read.
func (b *builder) orderNumber(r *rand.Rand, f int) {
	var d string
	switch f / 11 % 4 {
	case 0:
		d = digits(r, 5+r.IntN(4), "123456789")
	case 1:
		d = digits(r, 10, "12345")
	case 2:
		d = digits(r, 11, "123456789")
	default:
		d = digits(r, 9, "123456789")
	}
	v, form := numberForm(r, d, []int{4, 4}, f/44)
	b.add(b.template(r, orders), v, redact.Mobile, true, "order number, ", form)
}

// amountClause: a sum of rupees of up to ten digits, a mobile number's
// length and first digit included, after ₹ or Rs or before "rupees".
func (b *builder) amountClause(r *rand.Rand, f int) {
	d := digits(r, 3+r.IntN(8), "123456789")
	if f%2 == 0 {
		d = digits(r, 10, "6789")
	}
	c := b.template(r, amounts)
	v := d
	if strings.Contains(c, "₹") {
		v = indianGrouping(d)
	}
	c = strings.Replace(c, slot, "999", strings.Count(c, slot)-1) // a second amount, if any
	b.add(c, v, redact.Mobile, true, "amount")
}

// invalidAadhaar: twelve digits, first 2 to 9, that fail Verhoeff (and
// are no mobile number after 91).
func invalidAadhaar(r *rand.Rand) string {
	for {
		d := digits(r, 12, "23456789")
		if !redact.Verhoeff(d) && !(d[:2] == "91" && d[2] >= '6') {
			return d
		}
	}
}
