// Package transcript renders recognition results as txt, srt and vtt, with
// speaker labels when diarized, a maximum line length and sensible cue
// splitting. The transcript JSON itself is kept exactly as the service
// returned it.
package transcript
