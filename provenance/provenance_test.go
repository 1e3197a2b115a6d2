package provenance_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/voxform/voxform/provenance"
)

const (
	sumA = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
	sumB = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
)

// sample is a statement as voxform writes one: a subject, a request, a
// file dependency, a URL and a git commit, the service's ids.
func sample() *provenance.Statement {
	return &provenance.Statement{
		Type:          provenance.StatementType,
		PredicateType: provenance.PredicateType,
		Subject:       []provenance.Descriptor{{Name: "out/hello.wav", Digest: map[string]string{"sha256": sumA}}},
		Predicate: provenance.Provenance{
			BuildDefinition: provenance.BuildDefinition{
				BuildType:          provenance.BuildType,
				ExternalParameters: json.RawMessage(`{"address":"synthesis.hello","kind":"synthesis","request":{"text":"नमस्ते"}}`),
				InternalParameters: map[string]any{"request_ids": []string{"req-1"}, "billed_characters": 6},
				ResolvedDependencies: []provenance.Descriptor{
					{Name: "hello.txt", Digest: map[string]string{"sha256": sumB}, Annotations: map[string]any{"role": "text_file"}},
					{URI: "https://example.com/a.wav", Annotations: map[string]any{"role": "source"}},
					{Name: "git", Digest: map[string]string{"gitCommit": strings.Repeat("ab", 20)}},
				},
			},
			RunDetails: provenance.RunDetails{
				Builder:  provenance.Builder{ID: provenance.BuilderID, Version: map[string]string{"voxform": "0.1.0"}},
				Metadata: &provenance.Metadata{InvocationID: "req-1", FinishedOn: provenance.Timestamp(time.Date(2026, 11, 28, 1, 2, 3, 4, time.FixedZone("IST", 19800)))},
			},
		},
	}
}

// schemas compiles the in-toto Statement v1 and SLSA Provenance v1 JSON
// Schemas of testdata (written from the specifications: neither project
// publishes one), formats asserted.
func schemas(t *testing.T) []*jsonschema.Schema {
	t.Helper()
	var out []*jsonschema.Schema
	for _, name := range []string{"intoto-statement-v1.schema.json", "slsa-provenance-v1.schema.json"} {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat = true
		c.AssertContent = true
		s, err := c.Compile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func validate(t *testing.T, ss []*jsonschema.Schema, b []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := s.Validate(v); err != nil {
			return err
		}
	}
	return nil
}

// TestStatementValidatesAgainstSchemas: what Marshal writes is an in-toto
// Statement v1 and a SLSA Provenance v1 by their schemas, and the schemas
// refuse what the specifications forbid (so that passing them means
// something).
func TestStatementValidatesAgainstSchemas(t *testing.T) {
	ss := schemas(t)
	b, err := provenance.Marshal(sample(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, ss, b); err != nil {
		t.Fatalf("a statement voxform writes: %v\n%s", err, b)
	}
	if !bytes.Contains(b, []byte(`"finishedOn": "2026-11-27T19:32:03Z"`)) {
		t.Errorf("timestamp not RFC 3339 UTC to the second:\n%s", b)
	}
	broken := map[string]string{
		"predicateType":            `"predicateType": "https://slsa.dev/provenance/v0.2"`,
		"subject without a digest": `"subject": [{"name": "out/hello.wav"}]`,
		"short sha256":             `"sha256": "abc"`,
		"no builder id":            `"builder": {"version": {}}`,
		"local time":               `"finishedOn": "2026-11-28T01:02:03+05:30"`,
	}
	for what, repl := range broken {
		bad := breakJSON(t, b, repl)
		if err := validate(t, ss, bad); err == nil {
			t.Errorf("%s: the schemas accept %s", what, bad)
		}
	}
}

// breakJSON replaces in b the member whose key repl starts with (its
// first occurrence, value included up to the end of its line).
func breakJSON(t *testing.T, b []byte, repl string) []byte {
	t.Helper()
	key, _, _ := strings.Cut(repl, ":")
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), key+":") {
			comma := ""
			if strings.HasSuffix(l, ",") {
				comma = ","
			}
			if strings.HasSuffix(strings.TrimSpace(l), "{") || strings.HasSuffix(strings.TrimSpace(l), "[") {
				end := i + 1
				for depth := 1; depth > 0; end++ {
					depth += strings.Count(lines[end], "{") + strings.Count(lines[end], "[") - strings.Count(lines[end], "}") - strings.Count(lines[end], "]")
				}
				comma = ""
				if strings.HasSuffix(lines[end-1], ",") {
					comma = ","
				}
				lines = append(lines[:i], append([]string{repl + comma}, lines[end:]...)...)
			} else {
				lines[i] = repl + comma
			}
			return []byte(strings.Join(lines, "\n"))
		}
	}
	t.Fatalf("no %s in %s", key, b)
	return nil
}

// TestParseRefuses: Parse reads only a bounded statement of voxform's
// types, with well-formed digests.
func TestParseRefuses(t *testing.T) {
	good, _ := provenance.Marshal(sample(), false)
	if _, err := provenance.Parse(good); err != nil {
		t.Fatal(err)
	}
	huge := append(bytes.Repeat([]byte(" "), provenance.MaxStatementBytes), good...)
	many := sample()
	for range provenance.MaxDescriptors {
		many.Subject = append(many.Subject, many.Subject[0])
	}
	manyB, _ := json.Marshal(many)
	arr := sample()
	arr.Predicate.BuildDefinition.ExternalParameters = json.RawMessage(`[1]`)
	arrB, _ := json.Marshal(arr)
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"huge":          {huge, "MaxStatementBytes"},
		"many":          {manyB, "MaxDescriptors"},
		"type":          {bytes.Replace(good, []byte("Statement/v1"), []byte("Statement/v0.1"), 1), "_type"},
		"digest":        {bytes.Replace(good, []byte(sumA), []byte(strings.ToUpper(sumA)), 1), "lowercase hex"},
		"two values":    {append(append([]byte{}, good...), good...), "more than one"},
		"params array":  {arrB, "externalParameters"},
		"not json":      {[]byte("{"), "read statement"},
		"no subject":    {bytes.Replace(good, []byte(`"subject":[`), []byte(`"subject":[],"x":[`), 1), "no subject"},
		"unknown alg":   {bytes.Replace(good, []byte(`"sha256":"`+sumA), []byte(`"sha256":"`+sumA+`","md5":"`+sumA[:32]), 1), "md5"},
		"wrong predict": {bytes.Replace(good, []byte("provenance/v1"), []byte("provenance/v0.2"), 1), "predicateType"},
	}
	for name, c := range cases {
		_, err := provenance.Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}
	if _, err := provenance.Marshal(many, false); err == nil || !strings.Contains(err.Error(), "MaxDescriptors") {
		t.Errorf("Marshal of too many descriptors: %v", err)
	}
}

// TestDSSE: the PAE is DSSE's (the protocol's own example), a signed
// envelope opens with its key only, and any byte of the payload changed
// breaks it.
func TestDSSE(t *testing.T) {
	if got := string(provenance.PAE("http://example.com/HelloWorld", []byte("hello world"))); got != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Errorf("PAE: %q", got)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	payload, _ := provenance.Marshal(sample(), true)
	env := provenance.Sign(payload, key)
	b, err := provenance.MarshalEnvelope(env)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := provenance.ReadRecord(b)
	if err != nil || rec.Envelope == nil {
		t.Fatalf("read envelope: %v %+v", err, rec)
	}
	pub := key.Public().(ed25519.PublicKey)
	if _, err := provenance.Open(rec.Envelope, pub); err != nil {
		t.Fatalf("open with its key: %v", err)
	}
	if rec.Envelope.Signatures[0].KeyID != provenance.KeyID(pub) {
		t.Errorf("keyid %q", rec.Envelope.Signatures[0].KeyID)
	}
	if _, err := provenance.Open(rec.Envelope, other); !errors.Is(err, provenance.ErrBadSignature) {
		t.Errorf("open with another key: %v", err)
	}
	for _, i := range []int{0, len(payload) / 2, len(payload) - 2} {
		e := *rec.Envelope
		e.Payload = bytes.Clone(e.Payload)
		e.Payload[i] ^= 1
		if _, err := provenance.Open(&e, pub); !errors.Is(err, provenance.ErrBadSignature) {
			t.Errorf("payload byte %d changed: %v", i, err)
		}
	}
	e := *rec.Envelope
	e.PayloadType = "application/json"
	if _, err := provenance.Open(&e, pub); err == nil {
		t.Error("another payload type opened")
	}
	e = *rec.Envelope
	e.Signatures = []provenance.Signature{{Sig: []byte("short")}}
	if _, err := provenance.Open(&e, pub); !errors.Is(err, provenance.ErrBadSignature) {
		t.Errorf("a malformed signature: %v", err)
	}
	e.Signatures = make([]provenance.Signature, 17)
	if _, err := provenance.Open(&e, pub); err == nil || !strings.Contains(err.Error(), "16") {
		t.Errorf("17 signatures: %v", err)
	}
}

// TestKeys: a generated pair round-trips; bad key files get clear,
// bounded errors.
func TestKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signing.key")
	pubPath, err := provenance.WriteKeyPair(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := provenance.WriteKeyPair(path); err == nil || !strings.Contains(err.Error(), "never replaced") {
		t.Errorf("second keygen over the key: %v", err)
	}
	priv, _ := provenance.ReadKeyFile(path)
	key, err := provenance.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubB, _ := provenance.ReadKeyFile(pubPath)
	pub, err := provenance.ParsePublicKey(pubB)
	if err != nil || !pub.Equal(key.Public()) {
		t.Fatalf("public key: %v", err)
	}
	if fromPriv, err := provenance.ParsePublicKey(priv); err != nil || !fromPriv.Equal(pub) {
		t.Errorf("public half of the private key: %v", err)
	}

	rsaKey, _ := rsa.GenerateKey(rand.Reader, 1024)
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: rsaDER})
	for name, c := range map[string]struct {
		in   []byte
		want string
	}{
		"not pem":    {[]byte("hello"), "not a PEM file"},
		"rsa":        {rsaPEM, "not an ed25519 key"},
		"public":     {pubB, `want "PRIVATE KEY"`},
		"two blocks": {append(append([]byte{}, priv...), priv...), "more than one PEM block"},
		"garbage":    {pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("xx")}), "not a PKCS#8"},
	} {
		if _, err := provenance.ParsePrivateKey(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	huge := filepath.Join(dir, "huge.key")
	os.WriteFile(huge, bytes.Repeat([]byte("A"), provenance.MaxKeyFileBytes+1), 0o600)
	if _, err := provenance.ReadKeyFile(huge); err == nil || !strings.Contains(err.Error(), "MaxKeyFileBytes") {
		t.Errorf("a huge key file: %v", err)
	}
	if _, err := provenance.ReadKeyFile(dir); err == nil {
		t.Error("a directory read as a key")
	}
	if _, err := provenance.ReadKeyFile("/dev/zero"); err == nil {
		t.Error("a device read as a key")
	}
}
