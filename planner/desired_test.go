package planner

import (
	"encoding/json"
	"testing"

	"github.com/voxform/voxform/internal/fieldtest"
	"github.com/voxform/voxform/manifest"
)

// TestDesiredDetailsIsZero: isZero, which spares the build reflect's
// allocation, knows every field of DesiredDetails.
func TestDesiredDetailsIsZero(t *testing.T) {
	fieldtest.EachSet(t, &DesiredDetails{}, true, (*DesiredDetails).isZero)
}

// TestDesiredJSON: a plan file holds a desired resource's details beside
// its other fields, in the order they were always written, and reads them
// back; those not saved stay out.
func TestDesiredJSON(t *testing.T) {
	d := (&Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Block: "synthesis.a", Request: json.RawMessage(`{"text":"<b>"}`),
		Fingerprint: "ff", Outputs: []Output{{Path: "a.wav"}}, Characters: 3, Voice: "v"}).
		WithDetails(DesiredDetails{Sources: []Source{{Role: "embedding", Path: "e.bin"}}, DependsOn: []string{"embedding.e"},
			Consent: "ok", Listen: &manifest.Listen{}, Written: "<b>"})
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"address":"synthesis.a","kind":"synthesis","block":"synthesis.a","wire":{},"request":{"text":"\u003cb\u003e"},` +
		`"fingerprint":"ff","sources":[{"role":"embedding","path":"e.bin"}],"depends_on":["embedding.e"],` +
		`"outputs":[{"path":"a.wav"}],"characters":3,"consent":"ok"}`
	if string(b) != want {
		t.Fatalf("plan file form:\n%s\nwant\n%s", b, want)
	}
	var back Desired
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if x := back.Details(); back.Address != d.Address || len(x.Sources) != 1 || x.DependsOn[0] != "embedding.e" || x.Consent != "ok" ||
		x.Listen != nil || x.Written != "" {
		t.Fatalf("read back: %+v %+v", back, x)
	}
}
