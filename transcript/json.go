package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// jsonSegment is a segment of a batch job transcript JSON or of an older
// batch result (service-docs/speech-recognition.md, "Transcript JSON" and
// "Older batch job"): the field names are the same.
type jsonSegment struct {
	StartTime float64 `json:"start_time"`
	EndTime   float64 `json:"end_time"`
	Text      string  `json:"text"`
	SpeakerID *int    `json:"speaker_id"`
}

// Document is what voxform reads of a transcript JSON document: its
// segments and the audit fields of a batch job transcript
// (speech-recognition.md, "Batch jobs: transcript JSON"). Fields the
// document lacks stay zero.
type Document struct {
	Segments []Segment
	// LanguageCode is the language the file was transcribed in.
	LanguageCode string
	// DurationSeconds is the audio's duration.
	DurationSeconds float64
	// Model is the model used.
	Model string
}

// DecodeJSON reads a transcript JSON document (the batch job transcript,
// or one older batch result) in one streaming pass: each segment is
// decoded as it comes, other fields (full_transcript and any the service
// adds) are skipped without being kept, so that memory holds the segments
// and at most one value of the document at a time, never the document.
// Each segment with a speaker_id is labelled as labels names it (see
// Labels), for diarized or multi-channel transcripts. Field names match
// as encoding/json matches them (case-insensitively); a repeated field
// counts once, the last.
func DecodeJSON(r io.Reader, labels Labels) (*Document, error) {
	doc, err := decodeDocument(json.NewDecoder(r), labels)
	if err != nil {
		return nil, fmt.Errorf("read transcript json: %w", err)
	}
	return doc, nil
}

// ParseJSON reads the segments of a transcript JSON document (see
// DecodeJSON).
func ParseJSON(r io.Reader, labels Labels) ([]Segment, error) {
	doc, err := DecodeJSON(r, labels)
	if err != nil {
		return nil, err
	}
	return doc.Segments, nil
}

// decodeDocument walks the top-level object.
func decodeDocument(dec *json.Decoder, labels Labels) (*Document, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	doc := &Document{Segments: []Segment{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch {
		case strings.EqualFold(key, "segments"):
			doc.Segments, err = decodeSegments(dec, labels)
		case strings.EqualFold(key, "language_code"):
			err = dec.Decode(&doc.LanguageCode)
		case strings.EqualFold(key, "duration_seconds"):
			err = dec.Decode(&doc.DurationSeconds)
		case strings.EqualFold(key, "model"):
			err = dec.Decode(&doc.Model)
		default:
			err = dec.Decode(&skipped{})
		}
		if err != nil {
			return nil, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	return doc, nil
}

// decodeSegments reads the segments array (or null) one segment at a time.
func decodeSegments(dec *json.Decoder, labels Labels) ([]Segment, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return []Segment{}, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("segments is %v, not an array", tok)
	}
	out := []Segment{}
	for i := 0; dec.More(); i++ {
		var s jsonSegment
		if err := dec.Decode(&s); err != nil {
			return nil, err
		}
		seg, err := s.segment(labels)
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		out = append(out, seg)
	}
	return out, expectDelim(dec, ']')
}

// expectDelim reads the next token, which must be d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("found %v where %v was expected", tok, d)
	}
	return nil
}

// skipped is a JSON value read and dropped: encoding/json hands it the
// value's bytes, still in the decoder's buffer, and nothing is copied.
type skipped struct{}

// UnmarshalJSON drops the value.
func (*skipped) UnmarshalJSON([]byte) error { return nil }

func (s jsonSegment) segment(labels Labels) (Segment, error) {
	if bad(s.StartTime) || bad(s.EndTime) {
		return Segment{}, fmt.Errorf("invalid times %v..%v", s.StartTime, s.EndTime)
	}
	seg := Segment{Start: Seconds(s.StartTime), End: Seconds(s.EndTime), Text: s.Text}
	if seg.End < seg.Start {
		seg.End = seg.Start
	}
	if labels.on() && s.SpeakerID != nil {
		seg.Speaker = labels.Name(*s.SpeakerID)
	}
	return seg, nil
}

func bad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) || f < 0 }

// Seconds converts a time in seconds, as the service writes it, to a
// Duration rounded to the millisecond.
func Seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}

// SpeakerLabel names a zero-based speaker id: 0 is "Speaker 1".
func SpeakerLabel(id int) string { return "Speaker " + strconv.Itoa(id+1) }

// Labels says how segments are labelled by their speaker_id: not at all
// (the zero value), by speaker ("Speaker 1", "Speaker 2" for a diarized
// or multi-channel transcript), or by the role of the channel (for a
// multi-channel recording, speaker_id is the channel index: {0: "agent",
// 1: "customer"}).
type Labels struct {
	// Speakers labels every segment that has a speaker_id.
	Speakers bool
	// Roles names channels (or speakers) by their zero-based id; an id
	// with no role keeps its "Speaker N" label. Roles alone also turn
	// labelling on.
	Roles map[int]string
}

// Name is the label of a zero-based speaker id: its role when Roles has
// one, else SpeakerLabel(id).
func (l Labels) Name(id int) string {
	if r, ok := l.Roles[id]; ok && r != "" {
		return r
	}
	return SpeakerLabel(id)
}

// on reports whether segments are labelled at all.
func (l Labels) on() bool { return l.Speakers || len(l.Roles) > 0 }
