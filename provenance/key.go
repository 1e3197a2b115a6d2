package provenance

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/owned"
)

// MaxKeyFileBytes is the largest key file ReadKeyFile reads: an ed25519
// key in PEM is under 200 bytes.
const MaxKeyFileBytes = 16 << 10

// PEM block types of the key files.
const (
	privateBlock = "PRIVATE KEY"
	publicBlock  = "PUBLIC KEY"
)

func thousands(n int) string { return numfmt.Thousands(n) }

// GenerateKey returns a new ed25519 key pair as PEM: the private key in
// PKCS#8, the public key in PKIX.
func GenerateKey() (private, public []byte, err error) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode private key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: privateBlock, Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: publicBlock, Bytes: pubDER}), nil
}

// ParsePrivateKey decodes an ed25519 private key from PKCS#8 PEM.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	der, err := pemBlock(b, privateBlock)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %w", err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an ed25519 key", k)
	}
	return key, nil
}

// ParsePublicKey decodes an ed25519 public key from PKIX PEM, or takes
// the public half of a private key's PEM.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	if blk, _ := pem.Decode(b); blk != nil && blk.Type == privateBlock {
		key, err := ParsePrivateKey(b)
		if err != nil {
			return nil, err
		}
		return key.Public().(ed25519.PublicKey), nil
	}
	der, err := pemBlock(b, publicBlock)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("not a PKIX public key: %w", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an ed25519 key", k)
	}
	return pub, nil
}

// pemBlock is the DER of b's one PEM block of type typ.
func pemBlock(b []byte, typ string) ([]byte, error) {
	blk, rest := pem.Decode(b)
	switch {
	case blk == nil:
		return nil, errors.New("not a PEM file")
	case blk.Type != typ:
		return nil, fmt.Errorf("a PEM %q block, want %q", blk.Type, typ)
	case len(pemTrim(rest)) > 0:
		return nil, errors.New("more than one PEM block")
	}
	return blk.Bytes, nil
}

func pemTrim(b []byte) []byte {
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' || b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// KeyID names a public key in a signature: the hex SHA-256 of its PKIX
// encoding.
func KeyID(pub ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// ReadKeyFile reads a key file of at most MaxKeyFileBytes: a regular
// file only (never a device or a pipe).
func ReadKeyFile(path string) ([]byte, error) {
	f, err := owned.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read key %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read key %s: %w", path, err)
	}
	if len(b) > MaxKeyFileBytes {
		return nil, fmt.Errorf("read key %s: larger than %s bytes, the limit of a key file (MaxKeyFileBytes); an ed25519 key in PEM is under 200", path, thousands(MaxKeyFileBytes))
	}
	return b, nil
}

// WriteKeyPair writes a new key pair: the private key to path, readable
// by its owner only (0600), the public key to path.pub (0644). Neither
// may exist already: a key is never replaced.
func WriteKeyPair(path string) (pubPath string, err error) {
	private, public, err := GenerateKey()
	if err != nil {
		return "", err
	}
	pubPath = path + ".pub"
	if err := writeNew(path, 0o600, private); err != nil {
		return "", err
	}
	if err := writeNew(pubPath, 0o644, public); err != nil {
		os.Remove(path)
		return "", err
	}
	return pubPath, nil
}

// writeNew creates path with b, failing if anything is there (a link
// included).
func writeNew(path string, perm os.FileMode, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("write key %s: a file is there already; a key is never replaced", path)
		}
		return fmt.Errorf("write key: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("write key %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("write key %s: %w", path, err)
	}
	return f.Close()
}
