package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/provenance"
)

// provenanceSchemas are the in-toto Statement v1 and SLSA Provenance v1
// JSON Schemas kept in provenance/testdata (written from the
// specifications, which publish none as JSON Schema).
func provenanceSchemas(t *testing.T) []*jsonschema.Schema {
	t.Helper()
	var out []*jsonschema.Schema
	for _, name := range []string{"intoto-statement-v1.schema.json", "slsa-provenance-v1.schema.json"} {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat = true
		s, err := c.Compile(filepath.Join("..", "provenance", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// flipByte changes one byte of the file rel and returns how to undo it.
func flipByte(t *testing.T, dir, rel string) func() {
	t.Helper()
	path := filepath.Join(dir, rel)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(orig)
	b[len(b)/2] ^= 1
	os.WriteFile(path, b, 0o644)
	return func() { os.WriteFile(path, orig, 0o644) }
}

// TestProvenanceCommand: keygen, provenance -key and verify -pub end to
// end. The statements the command writes validate against the in-toto
// and SLSA schemas; verify passes on the tree as attested and fails when
// one byte of an output or of an input (the manifest) changes, or the
// signature is not the key's.
func TestProvenanceCommand(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	keys := t.TempDir()
	key := filepath.Join(keys, "signing.key")
	if code := runCmd(env, "provenance", "keygen", key); code != ExitOK || !strings.Contains(stdout.String(), "key id") {
		t.Fatalf("keygen: exit %d: %s %s", code, stdout, stderr)
	}
	if code := runCmd(env, "provenance", "-key", key); code != ExitOK {
		t.Fatalf("provenance -key: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout.String(), "Wrote 2 provenance statement(s) of 2 resource(s) below provenance, signed by key") {
		t.Errorf("stdout: %s", stdout)
	}
	ss := provenanceSchemas(t)
	for _, out := range []string{"build/hello.wav", "build/bye.wav"} {
		b, err := os.ReadFile(filepath.Join(env.Dir, "provenance", out+".intoto.dsse.json"))
		if err != nil {
			t.Fatal(err)
		}
		var envl struct{ PayloadType, Payload string }
		json.Unmarshal(b, &envl)
		payload, _ := base64.StdEncoding.DecodeString(envl.Payload)
		var v any
		if err := json.Unmarshal(payload, &v); err != nil || envl.PayloadType != provenance.PayloadType {
			t.Fatalf("%s: %v %q", out, err, envl.PayloadType)
		}
		for _, s := range ss {
			if err := s.Validate(v); err != nil {
				t.Errorf("%s: %v\n%s", out, err, payload)
			}
		}
	}
	verify := func(args ...string) (int, string) {
		code := runCmd(env, append([]string{"provenance", "verify"}, args...)...)
		return code, stdout.String() + stderr.String()
	}
	if code, out := verify("-pub", key+".pub", "provenance"); code != ExitOK || !strings.Contains(out, "Verified 2 provenance file(s)") {
		t.Fatalf("verify of the tree as attested: exit %d: %s", code, out)
	}
	for _, c := range []struct{ rel, want string }{
		{"build/hello.wav", "provenance/build/hello.wav.intoto.dsse.json: subject build/hello.wav: modified (recorded "},
		{"voxform.yaml", "dependency voxform.yaml: modified"},
	} {
		undo := flipByte(t, env.Dir, c.rel)
		if code, out := verify("-pub", key+".pub", "provenance"); code != ExitError || !strings.Contains(out, c.want) {
			t.Errorf("one byte of %s changed: exit %d: %s", c.rel, code, out)
		}
		undo()
	}
	other := filepath.Join(keys, "other.key")
	runCmd(env, "provenance", "keygen", other)
	if code, out := verify("-pub", other+".pub", "provenance"); code != ExitError || !strings.Contains(out, "no signature of the envelope verifies with the public key") {
		t.Errorf("another key: exit %d: %s", code, out)
	}
	if code, out := verify("provenance"); code != ExitError || !strings.Contains(out, "give the signer's public key with -pub") {
		t.Errorf("a signed file without -pub: exit %d: %s", code, out)
	}
	if code, out := verify("-json", "-pub", key+".pub", "provenance/build/bye.wav.intoto.dsse.json"); code != ExitOK || !strings.Contains(out, `"role":"subject","name":"build/bye.wav"`) {
		t.Errorf("verify -json: exit %d: %s", code, out)
	}
}

// TestProvenanceUnsignedAndRefusals: without -key the statements are
// written bare and verify checks them without -pub (and refuses them with
// it); a pending resource, a secret in a statement, a bad key, a huge
// file and an -out through a link out of the project get clear errors.
func TestProvenanceUnsignedAndRefusals(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "provenance", "-json", "-out", "attest", "synthesis.bye"); code != ExitOK || !strings.Contains(stdout.String(), `"file":"attest/build/bye.wav.intoto.json","signed":false`) {
		t.Fatalf("provenance -json: exit %d: %s %s", code, stdout, stderr)
	}
	if code := runCmd(env, "provenance", "verify", "attest"); code != ExitOK {
		t.Errorf("verify unsigned: exit %d: %s %s", code, stdout, stderr)
	}
	keys := t.TempDir()
	runCmd(env, "provenance", "keygen", filepath.Join(keys, "k"))
	if code := runCmd(env, "provenance", "verify", "-pub", filepath.Join(keys, "k.pub"), "attest"); code != ExitError || !strings.Contains(stdout.String(), "not signed") {
		t.Errorf("verify -pub of an unsigned file: exit %d: %s", code, stdout)
	}
	notKey := filepath.Join(keys, "notes.txt")
	os.WriteFile(notKey, []byte("hello"), 0o600)
	huge := filepath.Join(keys, "huge.intoto.json")
	os.WriteFile(huge, bytes.Repeat([]byte(" "), provenance.MaxFileBytes+1), 0o644)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(env.Dir, "linked"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"provenance", "-key", notKey}, "-key " + notKey + ": not a PEM file"},
		{[]string{"provenance", "-key", filepath.Join(keys, "k.pub")}, `want "PRIVATE KEY"`},
		{[]string{"provenance", "verify", huge}, "MaxFileBytes"},
		{[]string{"provenance", "verify", "-pub", notKey, "attest"}, "not a PEM file"},
		{[]string{"provenance", "-out", "linked"}, "leads outside the manifest directory through a symbolic link"},
		{[]string{"provenance", "synthesis.nope"}, "synthesis.nope is not recorded"},
	} {
		code := runCmd(env, c.args...)
		if out := stdout.String() + stderr.String(); code != ExitError || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %q: %s", c.args, code, c.want, out)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("-out through a link: %d entries made outside the project", len(ents))
	}
	// The key echoed in what is recorded (here the text sent): refused,
	// the variable named, the value never printed.
	withEnv(env, map[string]string{"VOXFORM_API_KEY": "<laugh> नमस्ते"})
	if code := runCmd(env, "provenance", "-out", "leak"); code != ExitError || !strings.Contains(stderr.String(), "the value of VOXFORM_API_KEY") || strings.Contains(stderr.String(), "नमस्ते") {
		t.Errorf("a statement holding the key: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "leak")); err == nil {
		if ents, _ := os.ReadDir(filepath.Join(env.Dir, "leak", "build")); len(ents) > 0 {
			t.Errorf("statements written despite the refusal: %v", ents)
		}
	}
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(planManifest, "Goodbye", "Bye now", 1)), 0o644)
	if code := runCmd(env, "provenance", "-out", "again"); code != ExitError || !strings.Contains(stderr.String(), "synthesis.bye (its request or an input changed since it was made)") || !strings.Contains(stderr.String(), "hint: 'voxform plan'") {
		t.Errorf("a resource with pending changes: exit %d: %s", code, stderr)
	}
}
