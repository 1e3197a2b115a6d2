package provenance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/voxform/voxform/internal/numfmt"
)

// The types a statement declares.
const (
	// StatementType is the in-toto Statement v1 type (_type).
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is the SLSA Provenance v1 predicate type.
	PredicateType = "https://slsa.dev/provenance/v1"
	// BuildType identifies how voxform makes an output: one request to
	// the speech service (externalParameters.request, the canonical
	// request the state records), its answer written to the subjects.
	BuildType = "https://github.com/voxform/voxform/blob/main/README.md#provenance"
	// BuilderID identifies voxform as the build platform: the process
	// that ran on the user's machine and recorded the state.
	BuilderID = "https://github.com/voxform/voxform"
)

// Bounds of what Parse reads and Marshal writes.
const (
	// MaxStatementBytes is the largest encoded statement: 16 MiB, room
	// for a synthesis request holding its whole text (at most 8 MiB
	// spoken, manifest.MaxSpokenTextBytes) with JSON escapes.
	MaxStatementBytes = 16 << 20
	// MaxDescriptors is the most subjects plus dependencies one statement
	// names.
	MaxDescriptors = 10_000
)

// Statement is an in-toto Statement v1 with a SLSA Provenance v1
// predicate.
type Statement struct {
	Type          string       `json:"_type"`
	Subject       []Descriptor `json:"subject"`
	PredicateType string       `json:"predicateType"`
	Predicate     Provenance   `json:"predicate"`
}

// Descriptor is an in-toto ResourceDescriptor: a file by name and digest,
// a URL, or a git commit.
type Descriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
	// Annotations say more of the resource (a dependency's role).
	Annotations map[string]any `json:"annotations,omitempty"`
}

// Digest algorithms voxform writes.
const (
	SHA256    = "sha256"
	GitCommit = "gitCommit"
)

// Provenance is the SLSA Provenance v1 predicate.
type Provenance struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition is what the output was made from.
type BuildDefinition struct {
	BuildType string `json:"buildType"`
	// ExternalParameters is a JSON object, kept as encoded so that the
	// recorded request is carried byte for byte.
	ExternalParameters   json.RawMessage `json:"externalParameters"`
	InternalParameters   map[string]any  `json:"internalParameters,omitempty"`
	ResolvedDependencies []Descriptor    `json:"resolvedDependencies,omitempty"`
}

// RunDetails is who made the output, and when.
type RunDetails struct {
	Builder    Builder      `json:"builder"`
	Metadata   *Metadata    `json:"metadata,omitempty"`
	Byproducts []Descriptor `json:"byproducts,omitempty"`
}

// Builder is the build platform: voxform, with its version.
type Builder struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// Metadata is the invocation: its id and times (RFC 3339, UTC; see
// Timestamp).
type Metadata struct {
	InvocationID string `json:"invocationId,omitempty"`
	StartedOn    string `json:"startedOn,omitempty"`
	FinishedOn   string `json:"finishedOn,omitempty"`
}

// Timestamp is t as the in-toto field type Timestamp spells it: RFC 3339
// in UTC, to the second ("2026-11-28T01:02:03Z"); "" for the zero time.
func Timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Marshal encodes s, checked (see Check), indented for a reader when
// indent; an encoding over MaxStatementBytes is an error.
func Marshal(s *Statement, indent bool) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode statement: %w", err)
	}
	if b.Len() > MaxStatementBytes {
		return nil, fmt.Errorf("encode statement: %s bytes, over the limit of a statement (MaxStatementBytes, %s)",
			numfmt.Thousands(b.Len()), numfmt.Thousands(MaxStatementBytes))
	}
	return b.Bytes(), nil
}

// Parse decodes a statement of at most MaxStatementBytes and checks it.
func Parse(b []byte) (*Statement, error) {
	if len(b) > MaxStatementBytes {
		return nil, fmt.Errorf("read statement: %s bytes, over the limit of a statement (MaxStatementBytes, %s)",
			numfmt.Thousands(len(b)), numfmt.Thousands(MaxStatementBytes))
	}
	var s Statement
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("read statement: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("read statement: more than one JSON value")
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check reports the first way s is not a statement voxform writes: its
// types, at least one subject, every descriptor named (or a URL) with a
// well-formed digest, a builder and a build type, within MaxDescriptors.
func (s *Statement) Check() error {
	switch {
	case s.Type != StatementType:
		return fmt.Errorf("statement: _type %q, want %q", s.Type, StatementType)
	case s.PredicateType != PredicateType:
		return fmt.Errorf("statement: predicateType %q, want %q", s.PredicateType, PredicateType)
	case len(s.Subject) == 0:
		return errors.New("statement: no subject")
	case s.Predicate.BuildDefinition.BuildType == "":
		return errors.New("statement: no buildDefinition.buildType")
	case s.Predicate.RunDetails.Builder.ID == "":
		return errors.New("statement: no runDetails.builder.id")
	}
	if !isObject(s.Predicate.BuildDefinition.ExternalParameters) {
		return errors.New("statement: buildDefinition.externalParameters is not a JSON object")
	}
	deps := s.Predicate.BuildDefinition.ResolvedDependencies
	if n := len(s.Subject) + len(deps); n > MaxDescriptors {
		return fmt.Errorf("statement: %s subjects and dependencies, over the limit of a statement (MaxDescriptors, %s)",
			numfmt.Thousands(n), numfmt.Thousands(MaxDescriptors))
	}
	for i, d := range s.Subject {
		if err := d.check(true); err != nil {
			return fmt.Errorf("statement: subject[%d]: %w", i, err)
		}
	}
	for i, d := range deps {
		if err := d.check(false); err != nil {
			return fmt.Errorf("statement: resolvedDependencies[%d]: %w", i, err)
		}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// digestForms are the digests a statement may carry, lowercase hex.
var digestForms = map[string]*regexp.Regexp{
	SHA256:    regexp.MustCompile(`^[0-9a-f]{64}$`),
	GitCommit: regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`),
}

// check: a subject has a name and a sha256; any descriptor has a name or
// a URI and only digests of digestForms.
func (d *Descriptor) check(subject bool) error {
	if d.Name == "" && d.URI == "" {
		return errors.New("neither name nor uri")
	}
	if subject && (d.Name == "" || d.Digest[SHA256] == "") {
		return errors.New("a subject needs a name and a sha256 digest")
	}
	for alg, v := range d.Digest {
		re, ok := digestForms[alg]
		if !ok {
			return fmt.Errorf("digest %q: not an algorithm voxform checks (sha256, gitCommit)", alg)
		}
		if !re.MatchString(v) {
			return fmt.Errorf("digest %s: %q is not lowercase hex of its length", alg, v)
		}
	}
	return nil
}
