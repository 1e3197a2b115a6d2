package planner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/voxform/voxform/state"
)

// Canonical encodes v as compact JSON with object keys sorted at every level
// and no HTML escaping: exactly what encoding/json produces with
// SetEscapeHTML(false), so equal values give equal bytes whether numbers are
// Go integers or the float64s of decoded JSON. The common request types
// (maps, slices, strings, numbers, booleans) take a fast path that does not
// use reflection; anything else goes through encoding/json.
func Canonical(v any) ([]byte, error) {
	return appendCanonical(make([]byte, 0, 256), v)
}

func appendCanonical(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return appendFloat(b, x)
	case map[string]any:
		var small [16]string // a request's keys, without an allocation
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// appendFloat formats like encoding/json: shortest representation, with an
// exponent only for very small or very large magnitudes.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does without HTML escaping:
// control characters, quote and backslash escaped, invalid UTF-8 replaced
// by U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// encodeRequest returns the canonical JSON of request (see Canonical),
// exactly as long as it is, and the fingerprint of kind with it (see
// canonicalRequest). scratch, when not nil, is a buffer reused between
// calls. When prior (may be nil) records this very request, its bytes and
// fingerprint are returned rather than copies.
func encodeRequest(scratch *[]byte, kind string, request map[string]any, prior *state.Resource) (json.RawMessage, string, error) {
	var buf []byte
	if scratch == nil {
		buf = make([]byte, 0, 512) // a synthesis's request, without growing
		scratch = &buf
	}
	req, fp, err := canonicalRequest(scratch, kind, request)
	if err != nil {
		return nil, "", err
	}
	if prior != nil && prior.Fingerprint == string(fp[:]) {
		if raw := prior.RequestJSON(); bytes.Equal(raw, req) {
			return raw, prior.Fingerprint, nil
		}
	}
	return bytes.Clone(req), string(fp[:]), nil
}

// canonicalRequest writes the canonical JSON of {"kind": kind, "request":
// request}, whose keys sort in that order, into *scratch, and returns the
// request's part of it (valid until *scratch is written again) and the
// fingerprint: the SHA-256 (hex) of the whole.
func canonicalRequest(scratch *[]byte, kind string, request map[string]any) ([]byte, [2 * sha256.Size]byte, error) {
	var fp [2 * sha256.Size]byte
	buf := (*scratch)[:0]
	buf = append(buf, `{"kind":`...)
	buf = appendString(buf, kind)
	buf = append(buf, `,"request":`...)
	start := len(buf)
	buf, err := appendCanonical(buf, request)
	if err != nil {
		return nil, fp, fmt.Errorf("fingerprint: %w", err)
	}
	buf = append(buf, '}')
	*scratch = buf
	sum := sha256.Sum256(buf)
	hex.Encode(fp[:], sum[:])
	return buf[start : len(buf)-1], fp, nil
}
