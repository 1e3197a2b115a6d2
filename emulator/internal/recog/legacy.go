package recog

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Older batch limits (speech-recognition.md, "Limits").
const (
	legacyMaxFiles   = 10
	legacyMaxBody    = 80_000_000
	legacyMaxSeconds = 3600.0
	legacySubmitted  = 2 * time.Second // service time spent in "submitted"
	// legacyMaxSpeakers is the older batch's speaker limit ("Limits":
	// diarization, at most 2 speakers). No field asks for diarization; the
	// speaker_id it fills in for multi-channel audio names at most two
	// speakers, whatever the number of channels: a turn heard on channel
	// c (islands.go) is speaker c modulo 2.
	legacyMaxSpeakers = 2
)

// legacyContainers are the documented older batch formats: AAC, WAV, FLAC,
// ALAC (in an M4A container), OGG Vorbis and Opus. MP3 is not among them.
var legacyContainers = []string{"aac", "wav", "flac", "m4a", "ogg", "opus"}

type legacyJob struct {
	id      string
	opts    textOptions
	files   []legacyFile
	created time.Time
	doneAt  time.Time
	billed  bool
}

type legacyFile struct {
	name string
	a    *analysis
}

// legacySubmit serves POST /stt/v3/batch/submit.
func (s *service) legacySubmit(w http.ResponseWriter, r *http.Request) {
	traceID(w, r, s)
	f, err := readForm(r, 0, legacyMaxBody)
	if err != nil {
		restError(w, err)
		return
	}
	defer f.cleanup()
	s.env.Receive(r.Pattern, f.received())
	opts, err := parseTextOptions(f, true)
	if err != nil {
		restInvalid(w, err.Error())
		return
	}
	ups := f.files["audio_files"]
	switch {
	case len(ups) == 0:
		restInvalid(w, "audio_files is required: send at least one file")
		return
	case len(ups) > legacyMaxFiles:
		restInvalid(w, fmt.Sprintf("%d files sent: at most %d files per call", len(ups), legacyMaxFiles))
		return
	}
	j := &legacyJob{id: s.id("batch"), opts: opts, created: s.env.Now()}
	cost := legacySubmitted
	for _, up := range ups {
		a, err := s.analyzePath(up.Path)
		if err != nil {
			emu.WriteRESTError(w, http.StatusInternalServerError, emu.APIError, "could not read "+up.Name)
			return
		}
		if msg := legacyAudioProblem(up.Name, a); msg != "" {
			restInvalid(w, msg)
			return
		}
		j.files = append(j.files, legacyFile{name: up.Name, a: a})
		cost += perFile + time.Duration(a.Seconds*0.1*float64(time.Second))
	}
	j.doneAt = j.created.Add(s.env.Scaled(cost))
	s.mu.Lock()
	s.legacy[j.id] = j
	s.mu.Unlock()
	s.env.Stats.Inc(emu.LegacyJobsSubmitted)
	s.env.Stats.JobCreated(j.id)
	emu.WriteJSON(w, http.StatusOK, map[string]any{"job_id": j.id, "status": "submitted",
		"file_count": len(j.files), "message": "files accepted for transcription"})
}

func legacyAudioProblem(name string, a *analysis) string {
	switch {
	case a.Size == 0:
		return "file " + name + " is empty"
	case !slices.Contains(legacyContainers, a.Container):
		return "file " + name + " has an unsupported format: send AAC, WAV, FLAC, ALAC, OGG (Vorbis) or Opus"
	case a.Seconds >= legacyMaxSeconds:
		return fmt.Sprintf("file %s is %.0f seconds long: each file must be shorter than 1 hour", name, a.Seconds)
	}
	return ""
}

// traceID echoes X-API-Request-ID, or makes one up when it is absent.
func traceID(w http.ResponseWriter, r *http.Request, s *service) {
	id := r.Header.Get("X-API-Request-ID")
	if id == "" {
		id = s.id("trace")
	}
	w.Header().Set("X-API-Request-ID", id)
}

type legacyResult struct {
	Filename       string          `json:"filename"`
	Status         string          `json:"status"`
	FullTranscript string          `json:"full_transcript"`
	TotalDuration  float64         `json:"total_duration"`
	Error          *string         `json:"error"`
	Segments       []legacySegment `json:"segments"`
}

type legacySegment struct {
	SegmentID        int     `json:"segment_id"`
	StartTime        float64 `json:"start_time"`
	EndTime          float64 `json:"end_time"`
	Text             string  `json:"text"`
	SpeakerID        int     `json:"speaker_id"`
	LanguageDetected string  `json:"language_detected"`
}

// legacyStatus serves GET /stt/v3/batch/status/{job_id}: submitted, then
// processing, then completed or failed (SPEC section 8a).
func (s *service) legacyStatus(w http.ResponseWriter, r *http.Request) {
	traceID(w, r, s)
	s.mu.Lock()
	j, ok := s.legacy[r.PathValue("job_id")]
	if !ok {
		s.mu.Unlock()
		emu.WriteRESTError(w, http.StatusNotFound, "NOT_FOUND", "job "+r.PathValue("job_id")+" was not found or is no longer available")
		return
	}
	now := s.env.Now()
	body := s.legacyBody(j, now)
	s.env.Stats.JobPolled(j.id, now, legacyPollGuidance, body["status"] == "completed" || body["status"] == "failed")
	s.mu.Unlock()
	emu.WriteJSON(w, http.StatusOK, body)
}

// legacyBody computes the status object; the caller holds s.mu.
func (s *service) legacyBody(j *legacyJob, now time.Time) map[string]any {
	body := map[string]any{"job_id": j.id, "total_files": len(j.files), "completed_files": 0,
		"failed_files": 0, "overall_progress": 0, "results": nil, "error": nil}
	switch {
	case now.Before(j.created.Add(s.env.Scaled(legacySubmitted))):
		body["status"] = "submitted"
		return body
	case now.Before(j.doneAt):
		body["status"] = "processing"
		body["overall_progress"] = int(99 * now.Sub(j.created).Seconds() / j.doneAt.Sub(j.created).Seconds())
		return body
	}
	results := make([]legacyResult, len(j.files))
	done := 0
	for i, f := range j.files {
		results[i] = j.result(f)
		if results[i].Status == "completed" {
			done++
			if !j.billed {
				s.env.Stats.Inc(emu.FilesTranscribed)
				s.env.Stats.BillAudioSeconds(f.a.Seconds)
			}
		}
	}
	j.billed = true
	body["results"], body["completed_files"], body["failed_files"] = results, done, len(j.files)-done
	body["overall_progress"], body["status"] = 100, "completed"
	if done == 0 {
		body["status"], body["error"] = "failed", "no file could be transcribed"
	}
	return body
}

func (j *legacyJob) result(f legacyFile) legacyResult {
	speakers, byChannel := 1, 0
	if j.opts.multiChannel && f.a.Channels >= 2 {
		speakers = min(f.a.Channels, legacyMaxSpeakers)
		byChannel = legacyMaxSpeakers
	}
	segs := f.a.segments(j.opts.lang, speakers, byChannel)
	res := legacyResult{Filename: f.name, Status: "completed", TotalDuration: round3(f.a.Seconds), Segments: []legacySegment{}}
	if len(segs) == 0 {
		msg := "transcript empty: no speech was detected in the audio"
		res.Status, res.Error = "failed", &msg
		return res
	}
	for i, sg := range segs {
		res.Segments = append(res.Segments, legacySegment{SegmentID: i, StartTime: sg.Start, EndTime: sg.End,
			Text: j.opts.render(sg.Text), SpeakerID: sg.Speaker, LanguageDetected: j.opts.lang})
	}
	res.FullTranscript = j.opts.render(fullText(segs))
	return res
}
