package schema_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestManyUnknownFields: each unknown field of one large mapping is
// positioned by a lookup, not a scan of the mapping, so a manifest with
// 40,000 of them is reported in about a second (it took minutes).
func TestManyUnknownFields(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nsyntheses:\n  s:\n")
	for i := range 40_000 {
		fmt.Fprintf(&b, "    k%d: 1\n", i)
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	got := loadWithin(t, 30*time.Second, dir, manifest.LoadOptions{NoProbe: true})
	if len(got) != 40_000 || !strings.HasPrefix(got[39_999], `voxform.yaml:40003:5: error: unknown field "k39999" in syntheses.s`) {
		t.Errorf("%d diagnostics, the last %q", len(got), got[len(got)-1])
	}
}
