package state

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// deliveredResource is a synthesis with one delivered output recorded
// as d.
func deliveredResource(d Delivery) *Resource {
	r := sampleResource("a")
	r.Outputs = append(r.Outputs, Output{Path: "build/acx/a.mp3", SHA256: strings.Repeat("c", 64), Size: 10, Delivery: &d})
	return r
}

// hostileDeliveries are delivery records no apply writes, each with the
// words its error must say.
func hostileDeliveries() map[string]struct {
	d    Delivery
	want string
} {
	good := Delivery{Profile: "acx", Fingerprint: strings.Repeat("a", 64), Source: strings.Repeat("b", 64), Encoder: "master 1; ffmpeg 6.1"}
	long, ctrl, fp, profile := good, good, good, good
	long.Encoder = strings.Repeat("x", MaxEncoderLen+1)
	ctrl.Encoder = "ffmpeg \x1b[2J"
	fp.Fingerprint = "not a hash"
	profile.Profile = ""
	return map[string]struct {
		d    Delivery
		want string
	}{
		"encoder over MaxEncoderLen": {long, "outputs[1].delivery.encoder: not an encoder identity (at most 4096 bytes"},
		"encoder with an escape":     {ctrl, "outputs[1].delivery.encoder"},
		"fingerprint not a hash":     {fp, "outputs[1].delivery.fingerprint"},
		"no profile":                 {profile, "outputs[1].delivery.profile"},
	}
}

// TestDeliveryCheckedOnRead: a state file, or a journal, holding a
// delivery record no apply writes (an encoder identity over
// MaxEncoderLen, a control character in it, a hash that is not one, no
// profile) is refused as it is read, the record named by its place; one
// an apply writes reads back.
func TestDeliveryCheckedOnRead(t *testing.T) {
	good := Delivery{Profile: "acx", Fingerprint: strings.Repeat("a", 64), Source: strings.Repeat("b", 64), Encoder: strings.Repeat("e", MaxEncoderLen)}
	f := New()
	f.Resources["synthesis.a"] = deliveredResource(good)
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(&buf); err != nil || *got.Resources["synthesis.a"].Outputs[1].Delivery != good {
		t.Fatalf("a delivery an apply writes, read back: %v", err)
	}
	for name, c := range hostileDeliveries() {
		t.Run(name, func(t *testing.T) {
			f := New()
			f.Resources["synthesis.a"] = deliveredResource(c.d)
			var buf bytes.Buffer
			if err := f.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			_, err := Decode(&buf)
			if want := `read state: resources["synthesis.a"].` + c.want; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("state file: %v, want an error saying %q", err, want)
			}
			b, lk, rec := openLocked(t, t.TempDir())
			if err := rec.Record("synthesis.ok", sampleResource("ok")); err != nil {
				t.Fatal(err)
			}
			line, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.a": deliveredResource(c.d)}})
			rec.store.(*journalStore).j.f.Write(line)
			lk.Unlock()
			if _, err := b.Read(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("journal: %v, want an error saying %q", err, c.want)
			}
		})
	}
}
