package recog

import (
	"strconv"
	"time"
)

// The JSON bodies of the batch jobs API (speech-recognition.md, "Resources
// and their fields"), as structs so that key order is stable.

type progressBody struct {
	TotalFiles      int `json:"total_files"`
	CompletedFiles  int `json:"completed_files"`
	FailedFiles     int `json:"failed_files"`
	InProgressFiles int `json:"in_progress_files"`
	QueuedFiles     int `json:"queued_files"`
	CancelledFiles  int `json:"cancelled_files"`
}

type jobStatusBody struct {
	JobID        string       `json:"job_id"`
	Status       string       `json:"status"`
	Config       jobConfig    `json:"config"`
	Progress     progressBody `json:"progress"`
	CancelReason *string      `json:"cancel_reason"`
	CreatedAt    *string      `json:"created_at"`
	StartedAt    *string      `json:"started_at"`
	CompletedAt  *string      `json:"completed_at"`
	CancelledAt  *string      `json:"cancelled_at"`
	UpdatedAt    *string      `json:"updated_at"`
}

type fileRecordBody struct {
	FileID          string  `json:"file_id"`
	OriginalPath    string  `json:"original_path"`
	Status          string  `json:"status"`
	DurationSeconds *string `json:"duration_seconds"`
	TranscriptURL   *string `json:"transcript_url"`
	ErrorMessage    *string `json:"error_message"`
	CreatedAt       *string `json:"created_at"`
	CompletedAt     *string `json:"completed_at"`
}

type transcriptSegmentBody struct {
	SegmentID        int      `json:"segment_id"`
	StartTime        float64  `json:"start_time"`
	EndTime          float64  `json:"end_time"`
	Text             string   `json:"text"`
	SpeakerID        int      `json:"speaker_id"`
	Confidence       *float64 `json:"confidence"`
	LanguageDetected *string  `json:"language_detected"`
	Sentiment        *string  `json:"sentiment"`
	Emotion          *string  `json:"emotion"`
}

type transcriptBody struct {
	FileID          string                  `json:"file_id"`
	JobID           string                  `json:"job_id"`
	OriginalPath    string                  `json:"original_path"`
	LanguageCode    string                  `json:"language_code"`
	DurationSeconds float64                 `json:"duration_seconds"`
	Model           string                  `json:"model"`
	Mode            string                  `json:"mode"`
	Segments        []transcriptSegmentBody `json:"segments"`
	FullTranscript  string                  `json:"full_transcript"`
	CreatedAt       string                  `json:"created_at"`
}

// stamp formats a time as the service's ISO 8601, or null when zero.
func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z")
	return &s
}

func strp(s string) *string { return &s }

func (s *service) statusBody(j *job, now time.Time) jobStatusBody {
	b := jobStatusBody{JobID: j.id, Status: j.status, Config: j.cfg, CancelReason: j.cancelReason,
		CreatedAt: stamp(j.created), StartedAt: stamp(j.started), UpdatedAt: stamp(j.updated)}
	if !j.cancelledAt.IsZero() {
		b.CancelledAt = stamp(j.ended)
		if j.status == stCancelling {
			b.CancelledAt = nil
		}
	} else if terminal(j.status) {
		b.CompletedAt = stamp(j.ended)
	}
	b.Progress.TotalFiles = len(j.files)
	for _, f := range j.files {
		switch f.status {
		case fileCompleted:
			b.Progress.CompletedFiles++
		case fileFailed, fileSkipped:
			b.Progress.FailedFiles++
		case fileCancelled:
			b.Progress.CancelledFiles++
		default:
			if j.status == stInProgress && !now.Before(f.begin) {
				b.Progress.InProgressFiles++
			} else {
				b.Progress.QueuedFiles++
			}
		}
	}
	return b
}

func fileRecord(f *jobFile, url string) fileRecordBody {
	b := fileRecordBody{FileID: f.id, OriginalPath: f.path, Status: f.status,
		CreatedAt: stamp(f.created), CompletedAt: stamp(f.completed)}
	if f.a != nil && f.a.Size > 0 {
		b.DurationSeconds = strp(strconv.FormatFloat(round3(f.a.Seconds), 'f', 3, 64))
	}
	if url != "" {
		b.TranscriptURL = &url
	}
	if f.errMsg != "" {
		b.ErrorMessage = strp(f.errMsg)
	}
	return b
}

// transcript builds a completed file's transcript JSON.
func (j *job) transcript(f *jobFile) transcriptBody {
	speakers, byChannel := j.speakers(), 0
	if j.cfg.IsMultiChannel && f.a.Channels >= 2 {
		speakers = 2 // one speaker per channel
		byChannel = maxIslandChannels
	}
	segs := f.a.segments(f.lang, speakers, byChannel)
	out := transcriptBody{FileID: f.id, JobID: j.id, OriginalPath: f.path, LanguageCode: f.lang,
		DurationSeconds: round3(f.a.Seconds), Model: j.cfg.Model, Mode: j.cfg.Mode,
		Segments: make([]transcriptSegmentBody, len(segs)), FullTranscript: fullText(segs),
		CreatedAt: *stamp(f.completed)}
	for i, sg := range segs {
		out.Segments[i] = transcriptSegmentBody{SegmentID: i, StartTime: sg.Start, EndTime: sg.End,
			Text: sg.Text, SpeakerID: sg.Speaker}
	}
	return out
}
