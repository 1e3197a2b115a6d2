package planner_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// fakeFS is a manifest directory in memory: path -> content.
type fakeFS map[string]string

func (fs fakeFS) hash(p string) (state.FileHash, error) {
	c, ok := fs[p]
	if !ok {
		return state.FileHash{}, nil
	}
	sum := sha256.Sum256([]byte(c))
	return state.FileHash{Exists: true, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(c))}, nil
}

func (fs fakeFS) clone() fakeFS {
	out := fakeFS{}
	for k, v := range fs {
		out[k] = v
	}
	return out
}

func fptr(f float64) *float64 { return &f }

func synth(name, key, voice string, v *manifest.Voice, text, out string) *manifest.Synthesis {
	addr := "synthesis." + name
	if key != "" {
		addr += fmt.Sprintf("[%q]", key)
	}
	s := &manifest.Synthesis{
		Name: name, Key: key, HasKey: key != "", Address: addr,
		Voice: voice, Model: v.Model, VoiceName: v.Voice, Language: v.Language, Speed: v.Speed,
		Text: text, Output: out, Transport: "rest",
	}
	return s.WithDetails(manifest.SynthesisDetails{EmbeddingName: v.Embedding, EmbeddingFile: v.EmbeddingFile})
}

func transcription(name, input string, formats ...string) *manifest.Transcription {
	t := &manifest.Transcription{
		Name: name, Key: input, Address: fmt.Sprintf("transcription.%s[%q]", name, input),
		Input: input, API: "batch", Model: "stt-v2.5", LanguageCode: "hi-IN,en-IN",
		WithDiarization: true, NumSpeakers: 2, WithDenoise: new(bool),
		Formats: formats, Outputs: map[string]string{}, OutputDir: "build/transcripts",
	}
	base := input[len("recordings/") : len(input)-len(".wav")]
	for _, f := range formats {
		t.Outputs[f] = "build/transcripts/" + base + "." + f
	}
	return t
}

// project is a manifest and its directory.
type project struct {
	m  *manifest.Manifest
	fs fakeFS
	// enc identifies encoders (planner.Build's and Input.Encoder); nil:
	// none asked.
	enc planner.EncoderFunc
}

// baseProject: a narrator voice, a cloned voice, an IVR menu (for_each),
// a welcome prompt with audio tags and two recordings to transcribe.
func baseProject() *project {
	narrator := &manifest.Voice{Name: "narrator", Address: "voice.narrator", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}
	expressive := &manifest.Voice{Name: "expressive", Address: "voice.expressive", Model: "tts-v3.0", Voice: "Shivani", Language: "hi-IN"}
	founder := &manifest.Voice{Name: "founder", Address: "voice.founder", Model: "vc-v1", Embedding: "founder"}
	m := &manifest.Manifest{
		Dir: "/project", Hash: "manifest-hash-1", Version: 1,
		Voices: []*manifest.Voice{expressive, founder, narrator},
		Embeddings: []*manifest.Embedding{{
			Name: "founder", Address: "embedding.founder", ReferenceAudio: "refs/founder.wav",
			Output: "build/voices/founder.json", Consent: "release form 2026-10-01",
		}},
		Syntheses: []*manifest.Synthesis{
			synth("welcome", "", "expressive", expressive, "<excited> नमस्ते! आपका स्वागत है।", "build/ivr/welcome.wav"),
			synth("menu", "billing", "narrator", narrator, "बिलिंग के लिए एक दबाएँ", "build/ivr/menu/billing.wav"),
			synth("menu", "support", "narrator", narrator, "सहायता के लिए दो दबाएँ", "build/ivr/menu/support.wav"),
			synth("menu", "sales", "narrator", narrator, "बिक्री के लिए तीन दबाएँ", "build/ivr/menu/sales.wav"),
			synth("founder_intro", "", "founder", founder, "Hello, I started this company.", "build/founder/intro.wav"),
			synth("founder_outro", "", "founder", founder, "Thank you for listening.", "build/founder/outro.wav"),
		},
		Transcriptions: []*manifest.Transcription{
			transcription("calls", "recordings/a.wav", "json", "txt", "srt"),
			transcription("calls", "recordings/b.wav", "json", "txt", "srt"),
		},
	}
	fs := fakeFS{
		"refs/founder.wav": "founder reference v1",
		"recordings/a.wav": "call a",
		"recordings/b.wav": "call b",
	}
	return &project{m: m, fs: fs}
}

func (p *project) synthesis(addr string) *manifest.Synthesis {
	for _, s := range p.m.Syntheses {
		if s.Address == addr {
			return s
		}
	}
	panic("no synthesis " + addr)
}

func (p *project) desired(t *testing.T) []*planner.Desired {
	t.Helper()
	d, err := planner.Build(p.m, p.fs.hash)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// apply records every desired resource as done and writes its outputs into
// the fake directory, as a successful apply would.
func (p *project) apply(t *testing.T) *state.File {
	t.Helper()
	st := &state.File{Version: 1, Lineage: "lineage-1", Serial: 1, Resources: map[string]*state.Resource{}}
	for _, d := range p.desired(t) {
		e := d.Entry()
		for _, o := range d.Outputs {
			p.fs[o.Path] = "output of " + d.Fingerprint + " " + o.Format
			h, _ := p.fs.hash(o.Path)
			e.Outputs = append(e.Outputs, state.Output{Path: o.Path, SHA256: h.SHA256, Size: h.Size, Format: o.Format})
		}
		st.Resources[d.Address] = e
	}
	return st
}

// probe: every recording lasts 12m30s... except b, 61.5 s.
func probe(p string) (float64, error) {
	if p == "recordings/b.wav" {
		return 61.5, nil
	}
	return 750, nil
}

func (p *project) plan(t *testing.T, st *state.File, opts planner.Options) (*planner.Plan, error) {
	t.Helper()
	return planner.Compute(planner.Input{
		Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe,
		Options: opts, Budget: p.m.Budget, Encoder: p.enc,
	})
}

func addresses(p *planner.Plan) []string {
	var out []string
	for _, a := range p.Actions {
		out = append(out, a.Address)
	}
	sort.Strings(out)
	return out
}
