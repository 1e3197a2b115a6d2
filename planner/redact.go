package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/state"
)

// RedactedAudioFormat is the output format of a transcription's redacted
// copy of its recording (redact.audio).
const RedactedAudioFormat = cache.RoleRedactedAudio

// renderFields are the fields of a transcription's request that shape its
// outputs but are never sent: a change of only these is made again from a
// transcript voxform holds, free (rerender).
var renderFields = []string{"redact", "channels"}

// renderRequest adds to a transcription's canonical request what its
// outputs are made with besides the service's answer: the redaction
// (policy, the detectors' version, the redacted audio asked for) and the
// channel roles. Nothing is added when neither is declared, so that the
// fingerprint of every other transcription stays as it was.
func renderRequest(req map[string]any, t *manifest.Transcription) error {
	if t.Redact != nil {
		p, err := redact.NewPolicy(t.Redact.Kinds)
		if err != nil {
			return fmt.Errorf("%s: redact: %w", manifest.FieldPos(t.Redact.Fields, "kinds", t.Redact.Pos), err)
		}
		r := map[string]any{"policy": p.String(), "version": redact.Version}
		if t.Redact.Audio != "" {
			r["audio"] = t.Redact.Audio
		}
		req["redact"] = r
	}
	if len(t.Channels) > 0 {
		roles := make(map[string]any, len(t.Channels))
		for ch, role := range t.Channels {
			roles[strconv.Itoa(ch)] = role
		}
		req["channels"] = roles
	}
	return nil
}

// PolicyOf is the redaction policy t declares; ok is false when it
// declares none (or one NewPolicy refuses, which the plan reported).
func PolicyOf(t *manifest.Transcription) (redact.Policy, bool) {
	if t == nil || t.Redact == nil {
		return redact.Policy{}, false
	}
	p, err := redact.NewPolicy(t.Redact.Kinds)
	return p, err == nil
}

// rerender plans a transcription whose fingerprint changed only in what
// its outputs are made with (renderFields): they are made again from a
// transcript voxform holds, as a free Repair rendering from it, when one
// will do. The kept unredacted transcript serves any policy; the recorded
// JSON output serves when it is unredacted, or when the new policy
// redacts everything the recorded one did (redacting a redacted
// transcript further). Otherwise nil: the transcript is made again,
// billed.
func (c *computer) rerender(d *Desired, prior *state.Resource) (*Action, error) {
	if d.Kind != manifest.KindTranscription || c.replace[d.Address] || prior.Status != state.StatusComplete ||
		!sameRequest(prior.RequestFields(), d.RequestFields()) {
		return nil, nil
	}
	from, why, err := c.renderSource(d, prior)
	if from == "" || err != nil {
		return nil, err
	}
	a := (&Action{Address: d.Address, Type: Repair, Desired: d, Prior: prior}).WithDetails(ActionDetails{RenderFrom: from})
	a.Reasons = append(changeReasons(prior.RequestFields(), d, c.embeddingName), why)
	a.setRemoves(c.unclaimed(prior.Outputs, d.Outputs))
	return a, nil
}

// renderSource is the transcript a re-render reads, with the reason it is
// free: "" when no intact one will do.
func (c *computer) renderSource(d *Desired, prior *state.Resource) (string, string, error) {
	if r := prior.Details().Redaction; r != nil && r.Unredacted != nil && r.Unredacted.Path == state.UnredactedPath(d.Address) {
		st, err := c.outputStatus(r.Unredacted.Path, state.Output{Path: r.Unredacted.Path, SHA256: r.Unredacted.SHA256})
		if err != nil {
			return "", "", err
		}
		if st == intact {
			return r.Unredacted.Path, "rendered from the kept unredacted transcript", nil
		}
	}
	doc, ok := findFormat(prior.Outputs, "json")
	if !ok {
		return "", "", nil
	}
	if prior.Details().Redaction != nil {
		want, _ := PolicyOf(d.Details().Transcription)
		was, err := redact.NewPolicy(strings.Split(prior.Details().Redaction.Policy, ","))
		if err != nil || !want.Covers(was) || prior.Details().Redaction.Version != redact.Version {
			return "", "", nil
		}
	}
	st, err := c.outputStatus(doc.Path, doc)
	if err != nil || st != intact {
		return "", "", err
	}
	return doc.Path, "rendered from the recorded transcript", nil
}

// sameRequest reports whether two canonical transcription requests agree
// in every field the service is sent (every field but renderFields).
func sameRequest(a, b map[string]any) bool {
	if a == nil || b == nil {
		return false
	}
	for k, v := range a {
		if isRenderField(k) {
			continue
		}
		if w, ok := b[k]; !ok || fmt.Sprint(w) != fmt.Sprint(v) {
			return false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && !isRenderField(k) {
			return false
		}
	}
	return true
}

func isRenderField(k string) bool {
	for _, f := range renderFields {
		if f == k {
			return true
		}
	}
	return false
}

// dropKept plans the removal of a kept unredacted transcript the manifest
// no longer asks to keep (keep_unredacted turned off, or redaction
// removed without a change to the request, which rerender handles): the
// outputs are rendered again from it, byte for byte what they were, and
// the apply removes it. Free. Nil when nothing is kept or it is wanted.
func (c *computer) dropKept(d *Desired, prior *state.Resource) (*Action, error) {
	if d.Kind != manifest.KindTranscription || prior.Details().Redaction == nil || prior.Details().Redaction.Unredacted == nil {
		return nil, nil
	}
	if r := d.Details().Transcription.Redact; r != nil && r.KeepUnredacted {
		return nil, nil
	}
	from, _, err := c.renderSource(d, prior)
	if from == "" || err != nil {
		return nil, err
	}
	return (&Action{Address: d.Address, Type: Repair, Desired: d, Prior: prior,
		Reasons: []string{"keep_unredacted is off: the kept unredacted transcript is removed"}}).WithDetails(ActionDetails{RenderFrom: from}), nil
}
