// Package transcript renders recognition results as txt, srt and vtt, with
// speaker labels when diarized (or the roles of a multi-channel
// recording's channels, Labels), a maximum line length and sensible cue
// splitting. The transcript JSON itself is kept exactly as the service
// returned it.
//
// It also estimates where a piece of a segment's text is spoken
// (SpanTimes, spantime.go), for the redacted copy of a recording: the
// service times segments, not words.
package transcript
