package corpus

import (
	"math/rand/v2"
	"strings"

	"github.com/voxform/voxform/redact"
)

// templates are the clauses each kind is said in. An account number
// follows an account word, as the detector requires; no other clause
// has one.
var templates = map[redact.Kind][]clause{
	redact.Mobile: {
		{"en", "my mobile number is {}"}, {"en", "you can call me on {}"}, {"en", "please note my phone number {} for later"},
		{"hi", "मेरा मोबाइल नंबर {} है"}, {"hi", "मुझे {} पर कॉल करें"}, {"hi", "मेरा नंबर है {}"},
		{"hi-en", "mera mobile number {} hai"}, {"hi-en", "is number pe call kijiye {}"}, {"hi-en", "mera number {} hai"},
	},
	redact.Aadhaar: {
		{"en", "my aadhaar number is {}"}, {"en", "aadhaar card number {} please verify"},
		{"hi", "मेरा आधार नंबर {} है"}, {"hi", "आधार संख्या {}"},
		{"hi-en", "mera aadhaar number {} hai"}, {"hi-en", "aadhaar {} verify kar lijiye"},
	},
	redact.Card: {
		{"en", "my card number is {}"}, {"en", "the debit card number is {} expiring soon"},
		{"hi", "मेरा कार्ड नंबर {} है"}, {"hi", "कार्ड {} ब्लॉक कर दीजिए"},
		{"hi-en", "card number {} hai"}, {"hi-en", "mera credit card {} block karo"},
	},
	redact.BankAccount: {
		{"en", "my account number is {}"}, {"en", "account no. {}"}, {"en", "please credit a/c {} today"},
		{"hi", "मेरा खाता संख्या {} है"}, {"hi", "खाता नंबर {} है"},
		{"hi-en", "mera account number {} hai"}, {"hi-en", "a/c number {} mein daal do"},
	},
	redact.PAN: {
		{"en", "my PAN is {}"}, {"en", "PAN number {} for the form"},
		{"hi", "मेरा पैन नंबर {} है"}, {"hi-en", "mera PAN card number {} hai"},
	},
	redact.IFSC: {
		{"en", "the IFSC code is {}"}, {"en", "IFSC {} for the branch"},
		{"hi", "आईएफएससी कोड {} है"}, {"hi-en", "IFSC code {} hai"},
	},
	redact.UPI: {
		{"en", "send it to my UPI ID {}"}, {"en", "my UPI is {} thanks"},
		{"hi", "मेरी यूपीआई आईडी {} है"}, {"hi-en", "UPI ID {} pe bhej do"},
	},
	redact.Email: {
		{"en", "email me at {}"}, {"en", "my email is {} okay"},
		{"hi", "मेरा ईमेल {} है"}, {"hi-en", "mera email {} hai"},
	},
}

// entity adds a clause with an entity of kind k in its f-th form.
func (b *builder) entity(r *rand.Rand, k redact.Kind, f int) {
	value, form := valueOf(r, k, f)
	b.add(b.template(r, templates[k]), value, k, false, form)
}

// valueOf draws a valid value of kind k and writes it in its f-th form.
func valueOf(r *rand.Rand, k redact.Kind, f int) (string, string) {
	switch k {
	case redact.Mobile:
		return mobileForm(r, digits(r, 10, "6789"), f)
	case redact.Aadhaar:
		d := digits(r, 11, "23456789")
		return numberForm(r, d+string(redact.VerhoeffDigit(d)), []int{4, 4, 4}, f)
	case redact.Card:
		return numberForm(r, cardNumber(r, true), []int{4, 4, 4, 4}, f)
	case redact.BankAccount:
		return numberForm(r, accountNumber(r), []int{4, 4, 4, 4}, f)
	case redact.PAN:
		return codeForm(r, panValue(r, true), []int{5, 9}, f)
	case redact.IFSC:
		return codeForm(r, ifscValue(r, true), []int{4}, f)
	case redact.UPI:
		local := pick(r, []string{"ramesh.k", "priya99", "anil_kumar", digits(r, 10, "6789"), "sunita-devi"})
		return local + "@" + pick(r, []string{"okaxis", "okhdfcbank", "oksbi", "ybl", "paytm", "upi", "ibl", "axl"}), "handle@psp"
	}
	local := pick(r, []string{"priya.sharma", "rk_99", "Anil.Kumar", "support+calls"})
	return local + "@" + pick(r, []string{"gmail.com", "example.co.in", "mail.voxform.in", "yahoo.in"}), "address"
}

func numberForm(r *rand.Rand, d string, groups []int, f int) (string, string) {
	fm := numberForms[f%len(numberForms)]
	return fm.render(r, d, groups), fm.name
}

// mobileForm: the number forms, English and Hindi pairs, and the
// prefixes +91 and 0.
func mobileForm(r *rand.Rand, d string, f int) (string, string) {
	switch f % (len(numberForms) + 5) {
	case len(numberForms):
		return englishPairs(d), pairs.name
	case len(numberForms) + 1:
		return "+91 " + group(d, []int{5}, " "), "+91 grouped"
	case len(numberForms) + 2:
		return "+91-" + d, "+91-digits"
	case len(numberForms) + 3:
		return "+91" + d, "+91digits"
	case len(numberForms) + 4:
		return "0" + d, "0 prefix"
	}
	return numberForm(r, d, []int{5}, f)
}

// cardNumber draws a card number of a network: Visa, Mastercard, RuPay
// (16 digits) or American Express (15), its last digit Luhn's, or
// (valid false) any other.
func cardNumber(r *rand.Rand, valid bool) string {
	prefix := pick(r, []string{"4", "51", "55", "60", "65", "81", "82", "34", "37"})
	n := 16
	if prefix == "34" || prefix == "37" {
		n = 15
	}
	body := prefix + digits(r, n-1-len(prefix), "0123456789")
	check := redact.LuhnDigit(body)
	if !valid {
		check = '0' + (check-'0'+byte(1+r.IntN(9)))%10
	}
	return body + string(check)
}

// accountNumber draws 9 to 18 digits that pass neither a card's nor an
// Aadhaar's check: a number that does is read as that identifier (see
// the package redact documentation), which is no account number a test
// could tell from one.
func accountNumber(r *rand.Rand) string {
	for {
		d := digits(r, 9+r.IntN(10), "123456789")
		if !redact.Luhn(d) && !redact.Verhoeff(d) {
			return d
		}
	}
}

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// panValue draws a PAN; valid false: its fourth letter is no holder type.
func panValue(r *rand.Rand, valid bool) string {
	holders, others := "PCHFATBLJG", "DEIKMNOQRSUVWXYZ"
	fourth := holders
	if !valid {
		fourth = others
	}
	var b strings.Builder
	for range 3 {
		b.WriteByte(upper[r.IntN(26)])
	}
	b.WriteByte(fourth[r.IntN(len(fourth))])
	b.WriteByte(upper[r.IntN(26)])
	b.WriteString(digits(r, 4, "0123456789"))
	b.WriteByte(upper[r.IntN(26)])
	return b.String()
}

// ifscValue draws an IFSC; valid false: its fifth character is no zero.
func ifscValue(r *rand.Rand, valid bool) string {
	fifth := "0"
	if !valid {
		fifth = digits(r, 1, "123456789")
	}
	return pick(r, []string{"SBIN", "HDFC", "ICIC", "UTIB", "PUNB", "BARB", "CNRB", "KKBK"}) + fifth + digits(r, 6, "0123456789")
}

// codeForm writes a PAN or IFSC: as one word, in lower case, in its
// parts, spelled out letter by letter with the digits written, read in
// English or in Hindi.
func codeForm(r *rand.Rand, v string, parts []int, f int) (string, string) {
	switch f % 6 {
	case 1:
		return strings.ToLower(v), "lower case"
	case 2:
		return group(v, parts, " "), "parts"
	case 3:
		return spell(r, v, -1), "spelled, digits written"
	case 4:
		return spell(r, v, 0), "spelled, digits in English"
	case 5:
		return spell(r, v, 1), "spelled, digits in Hindi"
	}
	return v, "one word"
}

// spell writes each letter of v apart and its digits written (lang -1)
// or read (0 English, 1 Hindi).
func spell(r *rand.Rand, v string, lang int) string {
	var words []string
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < '0' || c > '9' || lang < 0:
			words = append(words, string(c))
		case lang == 0:
			words = append(words, englishDigits[c-'0'])
		default:
			words = append(words, hindiDigits[c-'0'])
		}
	}
	return strings.Join(words, " ")
}
