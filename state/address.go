package state

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// AddressKinds are the kinds of resource an address may name.
var AddressKinds = []string{"voice", "embedding", "synthesis", "transcription", "package"}

// Address is an address taken apart: KIND.NAME, or KIND.NAME["KEY"] for
// an instance of a block (HasKey).
type Address struct {
	Kind, Name, Key string
	HasKey          bool
}

// String is the address's one spelling: the key is quoted as Go quotes a
// string, so control characters and every rune that does not print are
// escaped, and the address holds none.
func (a Address) String() string {
	if !a.HasKey {
		return a.Kind + "." + a.Name
	}
	return a.Kind + "." + a.Name + "[" + strconv.Quote(a.Key) + "]"
}

// errAddress is the grammar, for the errors of ParseAddress.
var errAddress = errors.New(`not a voxform address: want KIND.NAME or KIND.NAME["KEY"], KIND one of voice, embedding, synthesis, transcription, package, NAME letters, digits, '_' or '-' not starting with a digit or '-', KEY a quoted string`)

// ParseAddress takes a recorded address apart. It accepts only the
// spelling String gives (what a manifest's resources are recorded under),
// so an address from a state file, a row or a journal cannot carry a
// control character or an escape sequence to the terminal. The error
// never quotes s: the caller names the entry, with s escaped.
func ParseAddress(s string) (Address, error) {
	kind, rest, ok := strings.Cut(s, ".")
	if !ok || !slices.Contains(AddressKinds, kind) {
		return Address{}, errAddress
	}
	a := Address{Kind: kind, Name: rest}
	if i := strings.IndexByte(rest, '['); i >= 0 {
		a.Name, a.HasKey = rest[:i], true
		quoted, ok := strings.CutSuffix(rest[i+1:], "]")
		if !ok || !strings.HasPrefix(quoted, `"`) {
			return Address{}, errAddress
		}
		key, err := strconv.Unquote(quoted)
		if err != nil || strconv.Quote(key) != quoted {
			return Address{}, errAddress
		}
		a.Key = key
	}
	if !IsName(a.Name) {
		return Address{}, errAddress
	}
	return a, nil
}

// CheckAddress reports whether s is an address as ParseAddress reads it.
func CheckAddress(s string) error {
	_, err := ParseAddress(s)
	return err
}

// IsName reports whether s is a block's name: a letter or '_', then
// letters, digits, '_' or '-' (the manifest schema's "name").
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}
