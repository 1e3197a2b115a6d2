package transcript_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/voxform/voxform/transcript"
)

// A stereo call's segments carry their channel as speaker_id: with roles,
// each is labelled by its channel's role in every format; a channel with
// no role keeps "Speaker N", and without labels nothing is labelled.
func TestLabelsNameChannelsByRole(t *testing.T) {
	doc := `{"segments":[{"start_time":0,"end_time":1.5,"text":"thank you for calling","speaker_id":0},
	{"start_time":1.5,"end_time":3,"text":"my number is nine eight","speaker_id":1},
	{"start_time":3,"end_time":4,"text":"hold on","speaker_id":2},
	{"start_time":4,"end_time":5,"text":"no id"}]}`
	roles := transcript.Labels{Roles: map[int]string{0: "agent", 1: "customer"}}
	segs, err := transcript.ParseJSON(strings.NewReader(doc), roles)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range segs {
		got = append(got, s.Speaker)
	}
	if want := []string{"agent", "customer", "Speaker 3", ""}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("speakers %q, want %q", got, want)
	}
	want := map[transcript.Format][]string{
		transcript.TXT: {"agent: thank you for calling", "customer: my number is nine eight"},
		transcript.SRT: {"agent: thank you for calling", "customer: my number is nine eight"},
		transcript.VTT: {"<v agent>thank you for calling", "<v customer>my number is nine eight"},
	}
	for f, lines := range want {
		var buf bytes.Buffer
		if err := transcript.RenderSlice(&buf, f, segs, transcript.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if !strings.Contains(buf.String(), l) {
				t.Errorf("%s lacks %q:\n%s", f, l, buf.String())
			}
		}
		if strings.Contains(buf.String(), "Speaker 1") || strings.Contains(buf.String(), "Speaker 2") {
			t.Errorf("%s still names a channel with a role by number:\n%s", f, buf.String())
		}
	}
	if segs, err := transcript.ParseJSON(strings.NewReader(doc), transcript.Labels{}); err != nil || segs[0].Speaker != "" {
		t.Errorf("unlabelled: %+v, %v", segs, err)
	}
	if n := (transcript.Labels{Speakers: true, Roles: map[int]string{1: ""}}).Name(1); n != "Speaker 2" {
		t.Errorf("an empty role names speaker 1 %q, want Speaker 2", n)
	}
}
