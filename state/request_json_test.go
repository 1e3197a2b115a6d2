package state

import (
	"bufio"
	"bytes"
	"testing"
	"time"
)

// TestRequestJSONEncodesAsItsMap: a resource whose request is set as
// canonical JSON (SetRequestJSON, as apply records it) is written byte
// for byte as one whose request is the same map: in the state file, in a
// journal line and in the snapshot; and a request read back from the
// indented state file is held compact, as it was set.
func TestRequestJSONEncodesAsItsMap(t *testing.T) {
	fields := map[string]any{
		"model": "tts-v2.5", "text": "<sigh> \"quoted\" & <b> नमस्ते\u2028", "speed": 1.15,
		"audio_config": map[string]any{"container": "raw", "encoding": "linear_pcm", "num_channels": 1, "sample_rate": 8000, "sample_width": 2},
		"chunks":       []any{"aa", "bb"},
	}
	raw := []byte(`{"audio_config":{"container":"raw","encoding":"linear_pcm","num_channels":1,"sample_rate":8000,"sample_width":2},` +
		`"chunks":["aa","bb"],"model":"tts-v2.5","speed":1.15,"text":"<sigh> \"quoted\" & <b> नमस्ते\u2028"}`)
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	res := func() *Resource {
		return &Resource{Kind: "synthesis", Status: StatusComplete, Fingerprint: "ab", CreatedAt: at, UpdatedAt: at,
			Outputs: []Output{{Path: "a.raw", SHA256: "cd", Size: 4}}}
	}
	byMap, byRaw := res(), res()
	byMap.Request = fields
	byRaw.SetRequestJSON(raw)
	encodings := func(r *Resource) (file, line, snap []byte) {
		f := New()
		f.Lineage = "5c1a6893-7741-41f9-ba54-84c68b84d6b6"
		f.Resources["synthesis.a"] = r
		var b bytes.Buffer
		if err := f.Encode(&b); err != nil {
			t.Fatal(err)
		}
		line, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var s bytes.Buffer
		sb := snapshotOf(f)
		w := bufio.NewWriter(&s)
		if err := sb.encodeResources(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		return b.Bytes(), line, s.Bytes()
	}
	mf, ml, ms := encodings(byMap)
	rf, rl, rs := encodings(byRaw)
	if !bytes.Equal(mf, rf) {
		t.Errorf("state file:\n%s\nwith the map:\n%s", rf, mf)
	}
	if !bytes.Equal(ml, rl) {
		t.Errorf("journal line:\n%s\nwith the map:\n%s", rl, ml)
	}
	if !bytes.Equal(ms, rs) {
		t.Error("the snapshot differs from the map's")
	}
	read, err := decodeBytes(rf)
	if err != nil {
		t.Fatal(err)
	}
	if got := read.Resources["synthesis.a"].rawRequest; !bytes.Equal(got, raw) {
		t.Errorf("read back from the file, the request is held as\n%s\nwant\n%s", got, raw)
	}
}
