package provenance

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// PayloadType is the DSSE payload type of an in-toto statement.
const PayloadType = "application/vnd.in-toto+json"

// maxSignatures is the most signatures Open looks at in one envelope.
const maxSignatures = 16

// Envelope is a DSSE envelope: the payload (base64 in JSON) and its
// signatures.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     []byte      `json:"payload"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one signature of an envelope: the signer's key id (KeyID)
// and the ed25519 signature of the PAE (base64 in JSON).
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   []byte `json:"sig"`
}

// PAE is DSSE's pre-authentication encoding of a payload and its type:
// "DSSEv1 LEN(type) type LEN(payload) payload", lengths in ASCII decimal,
// separated by single spaces. The signature covers it, so that neither
// the type nor the payload can be swapped.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// Sign returns the envelope of payload (an encoded statement) signed
// with key.
func Sign(payload []byte, key ed25519.PrivateKey) *Envelope {
	pub := key.Public().(ed25519.PublicKey)
	return &Envelope{
		PayloadType: PayloadType,
		Payload:     payload,
		Signatures:  []Signature{{KeyID: KeyID(pub), Sig: ed25519.Sign(key, PAE(PayloadType, payload))}},
	}
}

// ErrBadSignature is Open's error when no signature of the envelope is
// the public key's.
var ErrBadSignature = errors.New("no signature of the envelope verifies with the public key")

// Open checks that a signature of env verifies with pub and returns the
// statement it carries, parsed and checked. The key id is not trusted:
// every signature is tried with pub.
func Open(env *Envelope, pub ed25519.PublicKey) (*Statement, error) {
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("envelope: payloadType %q, want %q", env.PayloadType, PayloadType)
	}
	if len(env.Signatures) == 0 {
		return nil, errors.New("envelope: not signed")
	}
	if len(env.Signatures) > maxSignatures {
		return nil, fmt.Errorf("envelope: %d signatures, more than the %d voxform looks at", len(env.Signatures), maxSignatures)
	}
	pae := PAE(env.PayloadType, env.Payload)
	for _, s := range env.Signatures {
		if len(s.Sig) == ed25519.SignatureSize && ed25519.Verify(pub, pae, s.Sig) {
			return Parse(env.Payload)
		}
	}
	return nil, fmt.Errorf("envelope: %w (key id %s)", ErrBadSignature, KeyID(pub))
}

// MarshalEnvelope encodes env, indented.
func MarshalEnvelope(env *Envelope) ([]byte, error) {
	b, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
	return append(b, '\n'), nil
}

// MaxFileBytes is the largest statement or envelope file Read reads: an
// envelope holds a statement of MaxStatementBytes in base64, and the
// rest.
const MaxFileBytes = MaxStatementBytes/3*4 + 64<<10

// Record is a provenance file as read: a statement, or an envelope whose
// statement is not checked until Open.
type Record struct {
	Statement *Statement
	Envelope  *Envelope
}

// ReadRecord decodes a provenance file's content: a DSSE envelope (an
// object with payloadType) or a bare statement.
func ReadRecord(b []byte) (*Record, error) {
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s bytes, over the limit of a provenance file (MaxFileBytes, %s)", thousands(len(b)), thousands(MaxFileBytes))
	}
	var probe struct {
		PayloadType *string `json:"payloadType"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if probe.PayloadType == nil {
		s, err := Parse(b)
		if err != nil {
			return nil, err
		}
		return &Record{Statement: s}, nil
	}
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("read envelope: %w", err)
	}
	return &Record{Envelope: &env}, nil
}
