package redact

import "strings"

// atSpans finds e-mail addresses and UPI IDs around each "@": a local
// part of letters, digits and ". _ - + %", then a domain. A domain with
// a dot and a top-level part of two letters or more makes an e-mail
// address; a domain of letters alone (a PSP's handle: "okaxis", "ybl",
// "paytm") a UPI ID. Neither part is bounded in length: a part longer
// than RFC 5321 allows is redacted whole, not in part. One pass: each
// local part starts after the last byte that cannot be in one, and a
// domain ends at the next "@" at the latest.
func (p Policy) atSpans(s string) []Span {
	if !p.has(Email) && !p.has(UPI) {
		return nil
	}
	var out []Span
	local := 0 // where the run of local-part bytes before i starts
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			if !localChar(s[i]) {
				local = i + 1
			}
			continue
		}
		start := local
		for start < i && s[start] == '.' {
			start++
		}
		end := i + 1
		for end < len(s) && domainChar(s[end]) {
			end++
		}
		for end > i+1 && (s[end-1] == '.' || s[end-1] == '-') {
			end--
		}
		if kind := addressKind(s[i+1 : end]); start < i && kind != "" && p.has(kind) {
			out = append(out, Span{Kind: kind, Start: start, End: end})
		}
		local = i + 1
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
