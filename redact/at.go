package redact

import "strings"

// Bounds of the address detectors (RFC 5321's for an e-mail address).
const (
	maxLocal  = 64
	maxDomain = 255
)

// atSpans finds e-mail addresses and UPI IDs around each "@": a local
// part of letters, digits and ". _ - + %", then a domain. A domain with
// a dot and a top-level part of two letters or more makes an e-mail
// address; a domain of letters alone (a PSP's handle: "okaxis", "ybl",
// "paytm") a UPI ID.
func (p Policy) atSpans(s string) []Span {
	if !p.has(Email) && !p.has(UPI) {
		return nil
	}
	var out []Span
	for k := strings.IndexByte(s, '@'); k >= 0; {
		start := k
		for start > 0 && k-start < maxLocal && localChar(s[start-1]) {
			start--
		}
		for start < k && s[start] == '.' {
			start++
		}
		end := k + 1
		for end < len(s) && end-k <= maxDomain && domainChar(s[end]) {
			end++
		}
		for end > k+1 && (s[end-1] == '.' || s[end-1] == '-') {
			end--
		}
		if kind := addressKind(s[k+1 : end]); start < k && kind != "" && p.has(kind) {
			out = append(out, Span{Kind: kind, Start: start, End: end})
		}
		next := strings.IndexByte(s[k+1:], '@')
		if next < 0 {
			break
		}
		k += 1 + next
	}
	return out
}

// addressKind is Email or UPI for the domain of an address, or "".
func addressKind(domain string) Kind {
	dot := strings.LastIndexByte(domain, '.')
	if dot < 0 {
		if len(domain) >= 2 && letters(strings.ToUpper(domain)) {
			return UPI
		}
		return ""
	}
	tld := domain[dot+1:]
	if len(tld) >= 2 && letters(strings.ToUpper(tld)) && domain[0] != '.' && !strings.Contains(domain, "..") {
		return Email
	}
	return ""
}

func localChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-+%", c) >= 0
}

func domainChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}
