package redact

import (
	"fmt"
	"slices"
	"strings"
)

// Version is the version of the detectors: it changes whenever a text
// could be redacted differently than before, so that a state recording
// what was redacted under an older version knows to render again.
const Version = 2

// Kind is a kind of personal data a detector finds.
type Kind string

// The kinds, Indian identifiers first. Each detector and its precision
// rules are described in the package documentation.
const (
	Mobile      Kind = "mobile"
	Aadhaar     Kind = "aadhaar"
	PAN         Kind = "pan"
	Card        Kind = "card"
	BankAccount Kind = "bank_account"
	IFSC        Kind = "ifsc"
	UPI         Kind = "upi"
	Email       Kind = "email"
)

// AllKinds are every kind, in the documented order: Indian identifiers
// first.
func AllKinds() []Kind {
	return []Kind{Mobile, Aadhaar, PAN, Card, BankAccount, IFSC, UPI, Email}
}

// allName names every kind in NewPolicy.
const allName = "all"

// ParseKind reads a kind's name, in any case.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(AllKinds(), k) {
		return k, nil
	}
	return "", fmt.Errorf("parse redaction kind %q: unknown kind (valid: %s)", s, validNames())
}

func validNames() string {
	names := make([]string, 0, len(AllKinds())+1)
	for _, k := range AllKinds() {
		names = append(names, string(k))
	}
	return strings.Join(append(names, allName), ", ")
}

// Placeholder is what replaces a span of the kind: its name in capitals
// in brackets, "[AADHAAR]", "[BANK_ACCOUNT]".
func (k Kind) Placeholder() string { return "[" + strings.ToUpper(string(k)) + "]" }

// Policy is the set of kinds to redact, sorted by name and unique, so
// that equal policies compare and print equal.
type Policy struct{ Kinds []Kind }

// NewPolicy reads kind names; "all" stands for AllKinds. An unknown name
// is an error naming the valid ones.
func NewPolicy(kinds []string) (Policy, error) {
	var p Policy
	for _, s := range kinds {
		if strings.EqualFold(strings.TrimSpace(s), allName) {
			p.Kinds = append(p.Kinds, AllKinds()...)
			continue
		}
		k, err := ParseKind(s)
		if err != nil {
			return Policy{}, err
		}
		p.Kinds = append(p.Kinds, k)
	}
	slices.Sort(p.Kinds)
	p.Kinds = slices.Compact(p.Kinds)
	return p, nil
}

// String is the canonical form of the policy, its kinds joined by
// commas in sorted order: "aadhaar,card,mobile". The empty policy is "".
func (p Policy) String() string {
	names := make([]string, len(p.Kinds))
	for i, k := range p.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}

// Covers reports whether p redacts every kind q redacts.
func (p Policy) Covers(q Policy) bool {
	for _, k := range q.Kinds {
		if !p.has(k) {
			return false
		}
	}
	return true
}

func (p Policy) has(k Kind) bool { return slices.Contains(p.Kinds, k) }
