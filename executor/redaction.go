package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/voxform/voxform/audio/mute"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
	"golang.org/x/text/cases"
)

// maxRedactRounds bounds how often a redacted transcript is searched
// again: text joined around a placeholder could make a new match, which
// is redacted in turn; one still there after this many rounds fails the
// transcription (fail closed).
const maxRedactRounds = 4

// redaction is one transcript made ready for its outputs under a policy:
// the unredacted JSON document in a private scratch file (0600, removed
// by close), the segments as heard and as redacted, and the record of it.
type redaction struct {
	policy  redact.Policy
	scratch string
	heard   []transcript.Segment
	segs    []transcript.Segment
	spans   [][]redact.Span
	// whole marks the segments a later round redacted further: their
	// spans as heard are not all known, so the whole segment is silenced.
	whole  map[int]bool
	record *state.Redaction
}

// redactTranscript redacts the transcript of a under p: writeJSONDoc
// writes the document as the service answered, segs are its segments. With
// keep_unredacted the document is kept locally (state.KeepUnredacted).
func (w *outputs) redactTranscript(a *planner.Action, p redact.Policy, writeJSONDoc func(io.Writer) error, segs []transcript.Segment, answer bool) (*redaction, error) {
	f, err := state.UnredactedTemp(w.dir)
	if err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	r := &redaction{policy: p, scratch: f.Name(), heard: segs,
		record: &state.Redaction{Policy: p.String(), Version: redact.Version}}
	err = writeJSONDoc(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.close()
		return nil, fmt.Errorf("redact: %w", err)
	}
	if t := a.Desired.Details().Transcription; t.Redact.KeepUnredacted {
		switch {
		case answer:
			if r.record.Unredacted, err = state.KeepUnredacted(w.dir, a.Address, copyFrom(r.scratch)); err != nil {
				r.close()
				return nil, fmt.Errorf("keep the unredacted transcript of %s: %w", a.Address, err)
			}
		case a.Prior != nil && a.Prior.Details().Redaction != nil:
			// Made from a redacted transcript: the kept one, if any, is
			// still the answer; nothing else is kept.
			r.record.Unredacted = a.Prior.Details().Redaction.Unredacted
		}
	}
	if r.segs, r.spans, r.whole, err = redactSegments(p, segs); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *redaction) close() { os.Remove(r.scratch) }

// redactSegments redacts segs under p, across segment boundaries, until a
// search finds nothing more. spans are where each segment as heard was
// redacted in the first round (what the redacted audio silences); whole
// marks the segments a later round changed.
func redactSegments(p redact.Policy, segs []transcript.Segment) ([]transcript.Segment, [][]redact.Span, map[int]bool, error) {
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = s.Text
	}
	var first [][]redact.Span
	whole := map[int]bool{}
	for round := 0; ; round++ {
		spans := findBySpeaker(p, segs, texts)
		found := false
		for i, sp := range spans {
			if len(sp) > 0 {
				found = true
				texts[i] = redact.Replace(texts[i], sp)
				whole[i] = whole[i] || round > 0
			}
		}
		if round == 0 {
			first = spans
		}
		if !found {
			break
		}
		if round == maxRedactRounds {
			return nil, nil, nil, fmt.Errorf("redact: the transcript still holds personal data after %d rounds", maxRedactRounds)
		}
	}
	out := make([]transcript.Segment, len(segs))
	for i, s := range segs {
		s.Text = texts[i]
		out[i] = s
	}
	return out, first, whole, nil
}

// findBySpeaker is p.FindInSegments over each speaker's segments in turn
// (texts[i] the text of segs[i] now): a number one speaker reads over two
// segments is found, while a number the other party says in between, or
// right after, never joins it into a run of no identifier. Segments
// without a speaker label are one speaker.
func findBySpeaker(p redact.Policy, segs []transcript.Segment, texts []string) [][]redact.Span {
	out := make([][]redact.Span, len(texts))
	groups := map[string][]int{}
	var order []string
	for i, s := range segs {
		if _, ok := groups[s.Speaker]; !ok {
			order = append(order, s.Speaker)
		}
		groups[s.Speaker] = append(groups[s.Speaker], i)
	}
	for _, sp := range order {
		idx := groups[sp]
		own := make([]string, len(idx))
		for j, i := range idx {
			own[j] = texts[i]
		}
		for j, spans := range p.FindInSegments(own) {
			out[idx[j]] = spans
		}
	}
	return out
}

// writeJSON writes the redacted transcript JSON: the document as the
// service answered, every string redacted (redactJSON).
func (r *redaction) writeJSON(w io.Writer) error {
	f, err := os.Open(r.scratch)
	if err != nil {
		return err
	}
	defer f.Close()
	return redactJSON(w, f, r.policy, r.heard, r.segs)
}

// dropKeys are the fields a redacted document leaves out: a realtime
// session's messages repeat its segments' text split in ways no search
// can follow across messages.
var dropKeys = map[string]bool{"messages": true}

// redactJSON streams the JSON document src to dst with every string value
// redacted: a segment's text (top-level segments[i].text, keys matched as
// transcript.DecodeJSON matches them) by its redacted segment
// (redacted[i], when heard[i] is that text), any other string, and every
// key, searched on its own; a number an identifier could be is written
// as null. An object with a key twice is refused: which one a reader
// takes is not certain. Numbers are otherwise written as they were.
func redactJSON(dst io.Writer, src io.Reader, p redact.Policy, heard, redacted []transcript.Segment) error {
	dec := json.NewDecoder(src)
	dec.UseNumber()
	jw := &jsonRewriter{dec: dec, w: dst, p: p, heard: heard, redacted: redacted, fold: cases.Fold()}
	if err := jw.value(nil); err != nil {
		return fmt.Errorf("redact transcript json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("redact transcript json: data after the document")
	}
	return jw.err
}

// jsonRewriter copies one JSON value at a time, knowing the keys above it.
type jsonRewriter struct {
	dec      *json.Decoder
	w        io.Writer
	p        redact.Policy
	heard    []transcript.Segment
	redacted []transcript.Segment
	fold     cases.Caser
	err      error
}

func (jw *jsonRewriter) write(b []byte) {
	if jw.err == nil {
		_, jw.err = jw.w.Write(b)
	}
}

// value copies the next value, at path (object keys, "[i]" for an
// array's elements).
func (jw *jsonRewriter) value(path []string) error {
	tok, err := jw.dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return jw.object(path)
		}
		if v == '[' {
			return jw.array(path)
		}
		return fmt.Errorf("unexpected %v", v)
	case string:
		jw.str(path, v)
	case json.Number:
		if len(jw.p.Find(v.String())) > 0 {
			jw.write([]byte("null"))
		} else {
			jw.write([]byte(v.String()))
		}
	case bool:
		jw.write([]byte(fmt.Sprint(v)))
	case nil:
		jw.write([]byte("null"))
	}
	return jw.err
}

func (jw *jsonRewriter) object(path []string) error {
	jw.write([]byte{'{'})
	first := true
	seen := map[string]bool{}
	for jw.dec.More() {
		tok, err := jw.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		folded := jw.fold.String(key)
		if seen[folded] {
			return fmt.Errorf("key %.40q twice in one object", key)
		}
		seen[folded] = true
		if dropKeys[folded] {
			if err := jw.dec.Decode(&skip{}); err != nil {
				return err
			}
			continue
		}
		if !first {
			jw.write([]byte{','})
		}
		first = false
		jw.encode(redactText(jw.p, key))
		jw.write([]byte{':'})
		if err := jw.value(append(path, folded)); err != nil {
			return err
		}
	}
	if _, err := jw.dec.Token(); err != nil {
		return err
	}
	jw.write([]byte{'}'})
	return jw.err
}

func (jw *jsonRewriter) array(path []string) error {
	jw.write([]byte{'['})
	for i := 0; jw.dec.More(); i++ {
		if i > 0 {
			jw.write([]byte{','})
		}
		if err := jw.value(append(path, fmt.Sprintf("[%d]", i))); err != nil {
			return err
		}
	}
	if _, err := jw.dec.Token(); err != nil {
		return err
	}
	jw.write([]byte{']'})
	return jw.err
}

// str writes a string value at path, redacted.
func (jw *jsonRewriter) str(path []string, s string) {
	n := len(path)
	switch {
	case n == 3 && path[0] == "segments" && path[2] == "text":
		var i int
		if _, err := fmt.Sscanf(path[1], "[%d]", &i); err == nil && i < len(jw.heard) && jw.heard[i].Text == s {
			s = jw.redacted[i].Text
			break
		}
		s = redactText(jw.p, s)
	default:
		s = redactText(jw.p, s)
	}
	jw.encode(s)
}

func (jw *jsonRewriter) encode(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	jw.write(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// redactText redacts s on its own, until nothing more is found.
func redactText(p redact.Policy, s string) string {
	for range maxRedactRounds {
		next := p.Redact(s)
		if next == s {
			return s
		}
		s = next
	}
	// Still matching: nothing of it is written.
	return redactedAll
}

// skip is a JSON value read and dropped.
type skip struct{}

// UnmarshalJSON drops the value.
func (*skip) UnmarshalJSON([]byte) error { return nil }

// redactedAudio writes the redacted copy of a's recording: every span r
// redacted, silenced or beeped (redact.audio) where transcript.SpanTimes
// places it; a whole segment where it cannot place a span, where a later
// round of redaction found more, or where the text it was made from holds
// a placeholder already (a re-render from a redacted transcript, which no
// longer says where in the segment the words were): fail closed.
func (w *outputs) redactedAudio(a *planner.Action, r *redaction) (*outputFile, error) {
	t := a.Desired.Details().Transcription
	src, err := w.openRecording(t)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	f, err := w.output(a, t.RedactedAudio)
	if err != nil {
		return nil, err
	}
	mode := mute.Silence
	if t.Redact.Audio == "beep" {
		mode = mute.Beep
	}
	if err := mute.Mute(f, src, muteRanges(r), mode); err != nil {
		f.Abort()
		return nil, fmt.Errorf("write %s: %w", t.RedactedAudio, err)
	}
	return f, nil
}

// muteRanges are the times of the recording the redacted audio silences:
// each span where transcript.SpanTimes places it, its pad carried past
// the segment's edge when it reaches one (the service's segment times
// are not exact either), or the whole segment (wholeSegment).
func muteRanges(r *redaction) []mute.Range {
	var out []mute.Range
	for i, seg := range r.heard {
		whole := r.whole[i] || hasPlaceholder(seg.Text)
		for _, s := range r.spans[i] {
			if whole {
				break
			}
			from, to, ok := transcript.SpanTimes(seg, s.Start, s.End)
			if !ok {
				whole = true
				break
			}
			if from <= seg.Start {
				from = max(0, seg.Start-transcript.SpanPadFixed)
			}
			if to >= seg.End {
				to = seg.End + transcript.SpanPadFixed
			}
			out = append(out, mute.Range{From: from, To: to})
		}
		if whole {
			out = append(out, wholeSegment(r.heard, i))
		}
	}
	return out
}

// restOfRecording ends a range that runs to the recording's end.
const restOfRecording = 1 << 62

// wholeSegment is the time of segment i padded by SpanPadFixed on each
// side; for a segment without duration, where its words must be: from
// the end of the segment before it to the start of the one after it (to
// the recording's end after the last).
func wholeSegment(segs []transcript.Segment, i int) mute.Range {
	seg := segs[i]
	if seg.End > seg.Start {
		return mute.Range{From: max(0, seg.Start-transcript.SpanPadFixed), To: seg.End + transcript.SpanPadFixed}
	}
	r := mute.Range{From: 0, To: restOfRecording}
	if i > 0 {
		r.From = min(segs[i-1].End, seg.Start)
	}
	if i+1 < len(segs) {
		r.To = max(segs[i+1].Start, seg.End)
	}
	return r
}

// hasPlaceholder reports whether text holds a redaction's placeholder.
func hasPlaceholder(text string) bool {
	if !strings.Contains(text, "[") {
		return false
	}
	for _, k := range redact.AllKinds() {
		if strings.Contains(text, k.Placeholder()) {
			return true
		}
	}
	return strings.Contains(text, redactedAll)
}

// redactedAll replaces a whole string that redaction could not settle.
const redactedAll = "[REDACTED]"
