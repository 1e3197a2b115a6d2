package planner_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// requestVariants is a project with every kind of request: each model
// (vc-v1 by embedding name and by file), each container, a chunked text,
// and each transcription API (a URL source, realtime with ITN, the older
// batch API).
func requestVariants() *project {
	p := baseProject()
	m := p.m
	v25 := &manifest.Voice{Name: "v25", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", Speed: fptr(1.15)}
	v20 := &manifest.Voice{Name: "v20", Model: "tts-v2.0", Voice: "Kaveri"}
	byFile := &manifest.Voice{Name: "byfile", Model: "vc-v1", EmbeddingFile: "voices/guest.json"}
	p.fs["voices/guest.json"] = `{"embedding": [0.1]}`
	configs := []*manifest.AudioConfig{nil, {Container: "mp3", Bitrate: "64k"}, {Container: "ogg"}, {Container: "mulaw"},
		{Container: "raw", Encoding: "pcm_alaw", SampleRate: 16000}, {Container: "wav", SampleRate: 8000, SampleWidth: 1}}
	for i, ac := range configs {
		for _, v := range []*manifest.Voice{v25, v20, byFile} {
			s := synth("variant", fmt.Sprintf("%s-%d", v.Name, i), v.Name, v, `<sigh> "quoted" & <tags>, नमस्ते`, fmt.Sprintf("build/v/%s-%d.wav", v.Name, i))
			s.AudioConfig = ac
			m.Syntheses = append(m.Syntheses, s)
		}
	}
	long := synth("long", "", "narrator", v25, "", "build/long.wav")
	for i := range 40 {
		long.Text += fmt.Sprintf("वाक्य संख्या %d यहाँ बोला जाता है। ", i)
	}
	m.Syntheses = append(m.Syntheses, long)
	m.Service.MaxTextChars = 300
	rest := transcription("rest", "recordings/a.wav", "json")
	rest.API, rest.Format, rest.ITNNativeNumerals = manifest.APIREST, contract.FormatTranscribe, true
	legacy := transcription("legacy", "recordings/b.wav", "txt")
	legacy.API, legacy.IsMultiChannel = manifest.APIBatchLegacy, true
	realtime := transcription("live", "recordings/a.wav", "json")
	realtime.API, realtime.Format = manifest.APIRealtime, contract.FormatTranscribe
	url := transcription("remote", "recordings/b.wav", "json")
	url.IsURL, url.Key, url.Input = true, "https://example.com/b.wav", "https://example.com/b.wav?X-Signature=secret"
	m.Transcriptions = append(m.Transcriptions, rest, legacy, realtime, url)
	return p
}

// TestRequestIsTheFingerprintedJSON: a desired resource's request is the
// canonical JSON its fingerprint covers, byte for byte, in every profile:
// the fingerprint of its fields is its fingerprint, and the bytes are its
// own (checked once all are built: building one writes no other's).
func TestRequestIsTheFingerprintedJSON(t *testing.T) {
	for _, profile := range contract.Profiles {
		p := requestVariants()
		p.m.Service.Profile = profile
		desired := p.desired(t)
		kinds := map[manifest.Kind]int{}
		chunked := 0
		for _, d := range desired {
			kinds[d.Kind]++
			if len(d.Details().Chunks) > 0 {
				chunked++
			}
			req := requestOf(t, d)
			fields := d.RequestFields()
			if fields == nil {
				t.Fatalf("%s: request %s does not decode", d.Address, req)
			}
			canonical, err := planner.Canonical(fields)
			if err != nil || !bytes.Equal(canonical, req) {
				t.Errorf("%s (%s): request\n%s\nis not the canonical JSON of its fields\n%s", d.Address, profile, req, canonical)
			}
			if fp, err := planner.Fingerprint(string(d.Kind), fields); err != nil || fp != d.Fingerprint {
				t.Errorf("%s (%s): Fingerprint of the fields %s, the resource's %s", d.Address, profile, fp, d.Fingerprint)
			}
			sum := sha256.Sum256([]byte(`{"kind":"` + string(d.Kind) + `","request":` + string(req) + `}`))
			if hex.EncodeToString(sum[:]) != d.Fingerprint {
				t.Errorf("%s (%s): the fingerprint is not that of the kind and the request bytes", d.Address, profile)
			}
		}
		if kinds[manifest.KindSynthesis] < 20 || kinds[manifest.KindTranscription] < 6 || kinds[manifest.KindEmbedding] != 1 || chunked != 1 {
			t.Fatalf("%s: variants %v, %d chunked: the project lost some", profile, kinds, chunked)
		}
		// Saved plans keep the request as it was (a JSON object in place).
		b, err := json.Marshal(desired[0])
		if err != nil || !bytes.Contains(b, append([]byte(`"request":`), requestOf(t, desired[0])...)) {
			t.Errorf("plan JSON of %s lacks its request: %s", desired[0].Address, b)
		}
	}
}
