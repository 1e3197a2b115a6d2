package workspace_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/provenance"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

const attested = `
voices:
  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  hello:
    voice: v
    text_file: hello.txt
    lexicon: lexicon.csv
    output: out/hello.wav
transcriptions:
  calls:
    inputs: ["rec/*.wav"]
    api: rest
    language_code: hi-IN
    output_dir: out/tx
    formats: [json, txt]
`

// silence is a second of 16 kHz mono 16-bit PCM silence, as a WAV file.
func silence() []byte {
	var b bytes.Buffer
	n := uint32(16000 * 2)
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, 36+n)
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(16000), uint32(32000), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, n)
	b.Write(make([]byte, n))
	return b.Bytes()
}

// attestedProject is a project with a synthesis from a text_file and a
// lexicon and a transcription of a recording, applied, in a git
// repository whose HEAD is a known commit.
func attestedProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	files := map[string][]byte{
		"voxform.yaml":         []byte(attested),
		"hello.txt":            []byte("नमस्ते, सब लोग\n"),
		"lexicon.csv":          []byte("term,spoken\nसब,सब के सब\n"),
		"rec/call.wav":         silence(),
		".git/HEAD":            []byte("ref: refs/heads/main\n"),
		".git/refs/heads/main": []byte(strings.Repeat("c0ffee12", 5) + "\n"),
	}
	for name, b := range files {
		path := filepath.Join(p.ws.Dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan, s := p.plan(planner.Options{})
	if sum := p.apply(s, plan); sum.Failed != 0 {
		t.Fatalf("apply: %+v", sum.Failures)
	}
	return p
}

func (p *project) provenance(opts workspace.ProvenanceOptions) ([]workspace.Attestation, *state.File, error) {
	p.t.Helper()
	st, err := p.ws.ReadState(p.ctx)
	if err != nil {
		p.t.Fatal(err)
	}
	atts, err := p.ws.Provenance(p.ctx, p.load(), st, opts)
	return atts, st, err
}

// deps are the statement's dependencies by name (or URI) and role.
func deps(s *provenance.Statement) map[string]provenance.Descriptor {
	out := map[string]provenance.Descriptor{}
	for _, d := range s.Predicate.BuildDefinition.ResolvedDependencies {
		out[d.Name+d.URI] = d
	}
	return out
}

// TestProvenanceOfRecordedOutputs: one statement per recorded output,
// its subject the recorded path and hash; the exact recorded request; every
// input (text_file, lexicon, recording, manifest) hashed as it is on disk,
// the git commit; the service's ids. Written and verified, it fails when
// one byte of the output or of an input changes.
func TestProvenanceOfRecordedOutputs(t *testing.T) {
	t.Parallel()
	p := attestedProject(t)
	atts, st, err := p.provenance(workspace.ProvenanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, a := range st.Resources {
		for _, o := range a.Outputs {
			outputs = append(outputs, o.Path)
		}
	}
	if len(atts) != len(outputs) || len(outputs) != 3 {
		t.Fatalf("%d statements of %d outputs (%v)", len(atts), len(outputs), outputs)
	}
	sha := func(rel string) string {
		sum, _, err := state.HashFile(filepath.Join(p.ws.Dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	for _, a := range atts {
		s := a.Statement
		r := st.Resources[a.Address]
		if len(s.Subject) != 1 || s.Subject[0].Name != a.Output || s.Subject[0].Digest["sha256"] != sha(a.Output) {
			t.Errorf("%s: subject %+v", a.Output, s.Subject)
		}
		var ext struct {
			Address string          `json:"address"`
			Request json.RawMessage `json:"request"`
		}
		json.Unmarshal(s.Predicate.BuildDefinition.ExternalParameters, &ext)
		recorded, _ := json.Marshal(r.RequestFields())
		var got any
		json.Unmarshal(ext.Request, &got)
		gotB, _ := json.Marshal(got)
		if ext.Address != a.Address || !bytes.Equal(gotB, recorded) {
			t.Errorf("%s: externalParameters %s, recorded request %s", a.Output, s.Predicate.BuildDefinition.ExternalParameters, recorded)
		}
		d := deps(s)
		want := []string{"voxform.yaml"}
		if strings.HasPrefix(a.Address, "synthesis.") {
			want = append(want, "hello.txt", "lexicon.csv")
		} else {
			want = append(want, "rec/call.wav")
		}
		for _, name := range want {
			if d[name].Digest["sha256"] != sha(name) {
				t.Errorf("%s: dependency %s: %+v, want sha256 %s", a.Output, name, d[name], sha(name))
			}
		}
		if d["git"].Digest["gitCommit"] != strings.Repeat("c0ffee12", 5) {
			t.Errorf("%s: git commit %+v", a.Output, d["git"])
		}
		ip := s.Predicate.BuildDefinition.InternalParameters
		md := s.Predicate.RunDetails.Metadata
		if md == nil || md.FinishedOn == "" || ip["state_lineage"] != st.Lineage {
			t.Errorf("%s: metadata %+v %v", a.Output, md, ip)
		}
		// The executor records the service's ids of transcriptions (a
		// synthesis's answer carries none it keeps).
		if r.Kind == "transcription" && (md.InvocationID != r.Details().RequestIDs[0] || ip["request_ids"] == nil || r.Details().Model != "" && ip["model"] != r.Details().Model) {
			t.Errorf("%s: service ids %+v %v, recorded %v %q", a.Output, md, ip, r.Details().RequestIDs, r.Details().Model)
		}
		if r.Kind == "synthesis" && ip["billed_characters"] != float64(r.BilledCharacters) && ip["billed_characters"] != r.BilledCharacters {
			t.Errorf("%s: billed %v, recorded %d", a.Output, ip["billed_characters"], r.BilledCharacters)
		}
		if _, err := provenance.Parse(a.Payload); err != nil {
			t.Errorf("%s: payload: %v", a.Output, err)
		}
		if _, err := p.ws.WriteAttestation(st, "provenance", a.Output, ".intoto.json", a.Payload); err != nil {
			t.Fatal(err)
		}
	}
	verify := func() []string {
		var bad []string
		for _, a := range atts {
			b, err := os.ReadFile(filepath.Join(p.ws.Dir, "provenance", a.Output+".intoto.json"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := provenance.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			found, err := provenance.VerifyFiles(context.Background(), s, provenance.Files{Dir: p.ws.Dir})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range found {
				if f.Problem != "" {
					bad = append(bad, f.Name+": "+f.Problem)
				}
			}
		}
		slices.Sort(bad)
		return slices.Compact(bad)
	}
	if bad := verify(); len(bad) != 0 {
		t.Fatalf("intact: %v", bad)
	}
	for _, rel := range []string{"out/hello.wav", "hello.txt", "rec/call.wav", "lexicon.csv"} {
		path := filepath.Join(p.ws.Dir, rel)
		orig, _ := os.ReadFile(path)
		b := bytes.Clone(orig)
		b[len(b)-1] ^= 1
		os.WriteFile(path, b, 0o644)
		if bad := verify(); !slices.Equal(bad, []string{rel + ": modified"}) {
			t.Errorf("one byte of %s changed: %v", rel, bad)
		}
		os.WriteFile(path, orig, 0o644)
	}
}

// TestProvenanceRefusesPending: a resource whose input changed since it
// was made (a plan would remake it) is refused, named, and nothing is
// attested; the others can still be, by name. An output changed on disk
// is refused too.
func TestProvenanceRefusesPending(t *testing.T) {
	t.Parallel()
	p := attestedProject(t)
	os.WriteFile(filepath.Join(p.ws.Dir, "hello.txt"), []byte("बदला हुआ पाठ\n"), 0o644)
	_, _, err := p.provenance(workspace.ProvenanceOptions{})
	if err == nil || !strings.Contains(err.Error(), "synthesis.hello (its request or an input changed") {
		t.Fatalf("a synthesis whose text_file changed: %v", err)
	}
	tx := `transcription.calls["rec/call.wav"]`
	atts, _, err := p.provenance(workspace.ProvenanceOptions{Addresses: []string{tx}})
	if err != nil || len(atts) != 2 {
		t.Fatalf("the transcription alone: %d, %v", len(atts), err)
	}
	os.WriteFile(filepath.Join(p.ws.Dir, "out/tx/call.txt"), []byte("edited"), 0o644)
	if _, _, err := p.provenance(workspace.ProvenanceOptions{Addresses: []string{tx}}); err == nil || !strings.Contains(err.Error(), "modified") {
		t.Errorf("an output edited: %v", err)
	}
	if _, _, err := p.provenance(workspace.ProvenanceOptions{Addresses: []string{"synthesis.nope"}}); err == nil || !strings.Contains(err.Error(), "not recorded") {
		t.Errorf("an address not recorded: %v", err)
	}
}

// TestProvenanceRefusesSecret: a statement that would hold the API key
// (here a text that echoes it, so the recorded request does) is refused,
// naming the variable and never the value, and nothing is returned.
func TestProvenanceRefusesSecret(t *testing.T) {
	t.Parallel()
	p := attestedProject(t)
	st, _ := p.ws.ReadState(p.ctx)
	req, _ := json.Marshal(st.Resources["synthesis.hello"].RequestFields())
	key := "सब लोग" // in the recorded request: the text of hello.txt
	if !bytes.Contains(req, []byte(key)) {
		t.Fatalf("the request does not hold %q: %s", key, req)
	}
	for name, secret := range map[string]string{"VOXFORM_API_KEY": key, "VOXFORM_PG (its password)": "नमस्ते, सब"} {
		atts, _, err := p.provenance(workspace.ProvenanceOptions{Secrets: map[string]string{name: secret}})
		if err == nil || atts != nil || !strings.Contains(err.Error(), "the value of "+name) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %d statements, %v", name, len(atts), err)
		}
	}
	if _, _, err := p.provenance(workspace.ProvenanceOptions{Secrets: map[string]string{"VOXFORM_API_KEY": "sk-not-in-any-statement"}}); err != nil {
		t.Errorf("a key in no statement: %v", err)
	}
}

// TestWriteAttestationRefuses: a statement is never written over an
// output, voxform's own files, or something that is not a provenance file.
func TestWriteAttestationRefuses(t *testing.T) {
	t.Parallel()
	p := attestedProject(t)
	atts, st, err := p.provenance(workspace.ProvenanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := atts[0]
	os.WriteFile(filepath.Join(p.ws.Dir, "notes.intoto.json"), []byte("my notes"), 0o644)
	for _, c := range []struct{ dir, rel, suffix, want string }{
		{".", "out/hello", ".wav", "is an output of synthesis.hello"},
		{".voxform", "x", ".json", ".voxform"},
		{".", "notes", ".intoto.json", "not a provenance file"},
	} {
		if _, err := p.ws.WriteAttestation(st, c.dir, c.rel, c.suffix, a.Payload); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s%s: %v, want %q", c.dir, c.rel, c.suffix, err, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(p.ws.Dir, "notes.intoto.json")); string(b) != "my notes" {
		t.Error("a file that is not a statement was replaced")
	}
}
