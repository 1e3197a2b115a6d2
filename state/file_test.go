package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/owned"

	"github.com/voxform/voxform/internal/fieldtest"
)

func sampleResource(text string) *Resource {
	return (&Resource{
		Kind:        "synthesis",
		Status:      StatusComplete,
		Fingerprint: "ab12",
		Request:     map[string]any{"text": text, "model": "tts-v3.0", "speed": 1.15, "audio_config": map[string]any{"sample_rate": 48000}},
		Outputs: []Output{{Path: "build/a.wav", SHA256: "ff", Size: 10,
			Loudness: LoudnessOf(loudness.Loudness{Integrated: -19.5, TruePeak: math.Inf(-1)})}},
		CreatedAt: time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC),
		UpdatedAt: time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC),
	}).WithDetails(Details{RequestIDs: []string{"req-1"}})
}

func TestEncodeSortedReadable(t *testing.T) {
	f := New()
	f.Resources["synthesis.b"] = sampleResource("<laugh> नमस्ते & bye")
	f.Resources["synthesis.a"] = sampleResource("x")
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `"<laugh> नमस्ते & bye"`) {
		t.Errorf("text not readable in the state file:\n%s", out)
	}
	// Keys sorted at every level: "lineage" < "resources" < "serial" < "version".
	order := []string{`"lineage"`, `"resources"`, `"synthesis.a"`, `"audio_config"`, `"model"`, `"speed"`, `"synthesis.b"`, `"serial"`, `"version"`, `"voxform_version"`}
	last := -1
	for _, k := range order {
		i := strings.Index(out[last+1:], k)
		if i < 0 {
			t.Fatalf("key %s missing or out of order in:\n%s", k, out)
		}
		last += 1 + i
	}
	if !strings.HasSuffix(out, "}\n") || !strings.Contains(out, "\n  \"resources\": {\n") {
		t.Errorf("not pretty-printed:\n%s", out)
	}
	got, err := Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.Resources["synthesis.b"].Outputs, got.Resources["synthesis.b"].Outputs); diff != "" {
		t.Error(diff)
	}
	if got.Resources["synthesis.b"].RequestFields()["speed"] != 1.15 {
		t.Errorf("speed = %v", got.Resources["synthesis.b"].RequestFields()["speed"])
	}
}

func TestDecodeVersions(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"newer", `{"version": 2, "resources": {"x": {"kind": "new-thing", "shape": [1]}}}`, "version 2: state file format is newer"},
		{"missing", `{"lineage": "x"}`, "no version field"},
		{"zero", `{"version": 0}`, "unknown version 0"},
		{"syntax", "{\n\"version\": 1,\n\"resources\": {,}}", "line 3"},
		{"unknown field", `{"version": 1, "resources": {}, "bogus": 1}`, "bogus"},
		{"null resource", `{"version": 1, "resources": {"synthesis.a": null}}`, "is null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode error = %v, want %q", err, tc.want)
			}
		})
	}
	_, err := Decode(strings.NewReader(`{"version": 7}`))
	if !errors.Is(err, ErrNewerVersion) {
		t.Errorf("not ErrNewerVersion: %v", err)
	}
}

func TestMatchAddress(t *testing.T) {
	tests := []struct {
		pattern, addr string
		want          bool
	}{
		{"synthesis.menu", `synthesis.menu["a"]`, true},
		{"synthesis.menu", "synthesis.menu", true},
		{"synthesis.menu", "synthesis.menu2", false},
		{`synthesis.menu["a"]`, `synthesis.menu["a"]`, true},
		{`synthesis.menu["a"]`, `synthesis.menu["ab"]`, false},
		{"synthesis", "synthesis.menu", false},
	}
	for _, tc := range tests {
		if got := MatchAddress(tc.pattern, tc.addr); got != tc.want {
			t.Errorf("MatchAddress(%q, %q) = %v", tc.pattern, tc.addr, got)
		}
	}
}

func TestWriteFileAtomicFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := owned.WriteFile(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Errorf("content = %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temp file left behind: %v", ents)
	}
}

// TestLargeStateDecodesInParallel: a state of thousands of resources, whose
// resources are decoded on every CPU, reads as it does in one piece; a
// resource amiss in it is reported as in one piece, with its line.
func TestLargeStateDecodesInParallel(t *testing.T) {
	f := New()
	for i := range parallelDecodeMin + 10 {
		f.Resources[fmt.Sprintf(`synthesis.p["%05d"]`, i)] = sampleResource(fmt.Sprintf("text %d", i))
	}
	data, err := MarshalSorted(f)
	if err != nil {
		t.Fatal(err)
	}
	par, ok := decodeParallel(data)
	if !ok {
		t.Fatal("a valid large state was not decoded in parallel")
	}
	ser, err := decodeSerial(data)
	if err != nil {
		t.Fatal(err)
	}
	a, b := encoded(t, par), encoded(t, ser)
	if !bytes.Equal(a, b) {
		t.Error("the state decoded in parallel differs from the one decoded in one piece")
	}
	for name, bad := range map[string]string{
		"unknown field": strings.Replace(string(data), `"status": "complete"`, `"status": "complete", "bogus": 1`, 1),
		"null":          strings.Replace(string(data), `"synthesis.p[\"00007\"]": {`, `"synthesis.p[\"00007\"]": null, "x": {`, 1),
	} {
		if bad == string(data) {
			t.Fatalf("%s: the state was not changed", name)
		}
		if _, ok := decodeParallel([]byte(bad)); ok {
			t.Errorf("%s: decoded in parallel", name)
		}
		if _, err := Decode(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: Decode succeeded", name)
		}
	}
}

// FuzzSplitResources: any bytes are split or refused, never a panic, and
// what is split is the resources object's members, as encoding/json reads
// them, where the whole is valid JSON.
func FuzzSplitResources(f *testing.F) {
	f.Add([]byte(`{"version": 1, "resources": {"a": {"k": "}\"{"}, "b\"c": [1, {"x": null}]}, "serial": 2}`))
	f.Add([]byte(`{"resources": {}}`))
	f.Add([]byte(`{"resources": {"a": 1,}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rest, members, ok := splitResources(data)
		if !ok || !json.Valid(data) {
			return
		}
		var whole struct {
			Resources map[string]json.RawMessage `json:"resources"`
		}
		if json.Unmarshal(data, &whole) != nil {
			return
		}
		got := map[string]string{}
		for _, m := range members {
			got[m.key] = string(m.value)
		}
		for k, v := range whole.Resources {
			if got[k] != string(v) {
				t.Errorf("member %q: split %q, want %q", k, got[k], v)
			}
		}
		if len(got) != len(whole.Resources) || !json.Valid(rest) {
			t.Errorf("%d members split, %d in the object; rest valid: %v", len(got), len(whole.Resources), json.Valid(rest))
		}
	})
}

// TestEncodeStreamsTheSortedBytes: Encode, which writes a resource at a
// time, writes exactly what MarshalSorted makes of the whole file, for
// every shape of state.
func TestEncodeStreamsTheSortedBytes(t *testing.T) {
	full := New()
	full.Resources["synthesis.b"] = sampleResource("<laugh> नमस्ते & bye \u2028 \"quoted\"")
	full.Resources[`synthesis.menu["a&b"]`] = sampleResource("x")
	full.Resources["transcription.c"] = (&Resource{Kind: "transcription", Status: StatusPending, Fingerprint: "f"}).WithDetails(Details{JobID: "job_1",
		Source: &Source{Path: "rec/a.wav", Name: "a.wav", SHA256: "00"}, BilledAudioSeconds: 1.5})
	full.JobIntents = []JobIntent{{ID: "i1", API: "batch", Created: time.Date(2026, 11, 24, 1, 2, 3, 4, time.UTC), Files: 3}}
	full.Written = []Written{{Path: "build/x.wav", Address: "synthesis.x", SHA256: "aa", Size: 3}}
	full.MovedTo = &Moved{Backend: "pg", Where: "pg database d", At: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Who: "ci"}
	empty := New()
	nilResources := New()
	nilResources.Resources = nil
	for name, f := range map[string]*File{"full": full, "empty": empty, "nil resources": nilResources} {
		want, err := MarshalSorted(f)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := f.Encode(&got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("%s: Encode differs from MarshalSorted (-want +got):\n%s", name, diff)
		}
	}
}

// TestDetailsIsZero: isZero, which spares the record's path reflect's
// allocation, knows every field of Details.
func TestDetailsIsZero(t *testing.T) {
	fieldtest.EachSet(t, &Details{}, true, (*Details).isZero)
}
