package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
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

// ParseJSON reads the segments of a transcript JSON document (the batch job
// transcript, or one older batch result). With labels set, each segment is
// labelled with SpeakerLabel of its speaker_id, for diarized or
// multi-channel transcripts.
func ParseJSON(r io.Reader, labels bool) ([]Segment, error) {
	var doc struct {
		Segments []jsonSegment `json:"segments"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("read transcript json: %w", err)
	}
	out := make([]Segment, 0, len(doc.Segments))
	for i, s := range doc.Segments {
		seg, err := s.segment(labels)
		if err != nil {
			return nil, fmt.Errorf("read transcript json: segment %d: %w", i, err)
		}
		out = append(out, seg)
	}
	return out, nil
}

func (s jsonSegment) segment(labels bool) (Segment, error) {
	if bad(s.StartTime) || bad(s.EndTime) {
		return Segment{}, fmt.Errorf("invalid times %v..%v", s.StartTime, s.EndTime)
	}
	seg := Segment{Start: Seconds(s.StartTime), End: Seconds(s.EndTime), Text: s.Text}
	if seg.End < seg.Start {
		seg.End = seg.Start
	}
	if labels && s.SpeakerID != nil {
		seg.Speaker = SpeakerLabel(*s.SpeakerID)
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
