package schema_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// TestUnknownFieldNames: unknown fields are named from the manifest, not
// from the validator's message, which quotes them with ' in map order: a
// name holding a ' gave other errors at each load (found by
// FuzzMergedLoad, testdata/fuzz/FuzzMergedLoad/cbbe7579eaf2f2dc).
func TestUnknownFieldNames(t *testing.T) {
	dir := t.TempDir()
	doc := "voices:\n  A: {mo'8, 807A, model: tts-v2.5, voice: Kaveri}\n"
	want := []string{
		"voxform.yaml:2:7: error: unknown field \"mo'8\" in voices.A\nhint: known fields: embedding, embedding_file, language, model, speed, voice",
		"voxform.yaml:2:13: error: unknown field \"807A\" in voices.A\nhint: known fields: embedding, embedding_file, language, model, speed, voice",
	}
	for range 20 {
		_, ds := manifest.LoadSources(dir, []string{"voxform.yaml"}, [][]byte{[]byte(doc)}, manifest.LoadOptions{NoProbe: true}, schema.Validator{})
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("diagnostics (-want +got):\n%s", diff)
		}
	}
}
