package recog

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Batch jobs limits for direct uploads (speech-recognition.md, "Limits").
const (
	maxJobFiles     = 100
	maxUploadFile   = 10_000_000
	maxZipSize      = 50_000_000
	maxZipExpanded  = 200_000_000
	batchModel      = "stt-v2.5"
	modeTranscribe  = "transcribe"
	codeInvalid     = "INVALID_REQUEST"
	codeUnsupported = "UNSUPPORTED_LANGUAGE"
	codeTooLong     = "AUDIO_TOO_LONG"
)

// jobExtensions are the documented batch job audio formats.
var jobExtensions = []string{".wav", ".mp3", ".mp4", ".flac", ".ogg", ".opus", ".m4a", ".aac", ".webm", ".amr"}

// apiError is a batch jobs error answer.
type apiError struct {
	status    int
	code, msg string
}

func (e *apiError) write(w http.ResponseWriter) { emu.WriteBatchError(w, e.status, e.code, e.msg) }

func invalid(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, codeInvalid, fmt.Sprintf(format, args...)}
}

// createJob serves POST /stt/v3/batch/jobs, JSON or multipart.
func (s *service) createJob(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var (
		j    *job
		aerr *apiError
	)
	switch mt {
	case "application/json":
		j, aerr = s.newURLJob(r)
	case "multipart/form-data":
		j, aerr = s.newUploadJob(r)
	default:
		aerr = invalid("send application/json (public URLs) or multipart/form-data (uploads)")
	}
	if aerr != nil {
		aerr.write(w)
		return
	}
	s.mu.Lock()
	s.jobs[j.id] = j
	s.order = append(s.order, j)
	s.mu.Unlock()
	s.env.Stats.Inc(emu.BatchJobsCreated)
	s.env.Stats.JobCreated(j.id)
	body := map[string]any{"job_id": j.id, "status": stCreated, "created_at": stamp(j.created),
		"total_files_accepted": nil,
		"message":              "job created; start it with POST /v1/jobs/" + j.id + "/start"}
	if !j.urlJob {
		body["total_files_accepted"] = len(j.files) - countStatus(j.files, fileSkipped)
	}
	emu.WriteJSON(w, http.StatusCreated, body)
}

// receiveConfig reports a job's config and callback URL to Received.
func (s *service) receiveConfig(r *http.Request, raw json.RawMessage, callback string) {
	if s.env.Opts.Received == nil {
		return
	}
	var cfg map[string]any
	_ = json.Unmarshal(raw, &cfg)
	s.env.Receive(r.Pattern, map[string]any{"config": cfg, "callback_url": callback})
}

// checkConfig validates a config object and fills its defaults.
func checkConfig(raw json.RawMessage) (jobConfig, []string, *apiError) {
	var c jobConfig
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil, invalid("config is required")
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, nil, invalid("config is not a valid JSON object: %v", err)
	}
	if c.Model != batchModel {
		return c, nil, invalid("config.model must be %q, not %q", batchModel, c.Model)
	}
	if c.LanguageCode == "" {
		return c, nil, invalid("config.language_code is required")
	}
	langs, ok := parseJobLanguages(c.LanguageCode)
	if !ok {
		return c, nil, &apiError{http.StatusBadRequest, codeUnsupported, unsupportedLanguageMessage(c.LanguageCode)}
	}
	if c.Mode == "" {
		c.Mode = modeTranscribe
	}
	if c.Mode != modeTranscribe {
		return c, nil, invalid("config.mode %q is not supported: only %q", c.Mode, modeTranscribe)
	}
	switch {
	case c.WithDiarization && c.NumSpeakers == nil:
		return c, nil, invalid("config.num_speakers is required when with_diarization is true")
	case c.NumSpeakers != nil && (*c.NumSpeakers < 1 || *c.NumSpeakers > 2):
		return c, nil, invalid("config.num_speakers must be 1 or 2, not %d", *c.NumSpeakers)
	}
	return c, langs, nil
}

// checkCallback accepts an https callback address, or http on loopback.
func checkCallback(raw string) *apiError {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return invalid("callback_url %q is not a valid URL", raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil
	}
	return invalid("callback_url must be an https URL")
}

func (s *service) newJob(cfg jobConfig, langs []string, callback string) *job {
	now := s.env.Now()
	return &job{id: s.id("job"), cfg: cfg, langs: langs, callback: callback, status: stCreated,
		created: now, updated: now}
}

// newURLJob reads a JSON create. Paths are checked at start, not here.
func (s *service) newURLJob(r *http.Request) (*job, *apiError) {
	var body struct {
		Config json.RawMessage `json:"config"`
		Source *struct {
			Type string `json:"type"`
			Auth *struct {
				Mode string `json:"mode"`
			} `json:"auth"`
			Paths []string `json:"paths"`
		} `json:"source"`
		CallbackURL string `json:"callback_url"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 8<<20)).Decode(&body); err != nil {
		return nil, invalid("the body is not valid JSON: %v", err)
	}
	s.receiveConfig(r, body.Config, body.CallbackURL)
	cfg, langs, aerr := checkConfig(body.Config)
	if aerr != nil {
		return nil, aerr
	}
	src := body.Source
	switch {
	case src == nil:
		return nil, invalid("source is required")
	case src.Type != "cloud_storage":
		return nil, invalid("source.type must be \"cloud_storage\", not %q", src.Type)
	case src.Auth == nil || src.Auth.Mode != "public":
		return nil, invalid("source.auth.mode must be \"public\"")
	case len(src.Paths) == 0:
		return nil, invalid("source.paths must list at least one URL")
	case slices.Contains(src.Paths, ""):
		return nil, invalid("source.paths must not hold empty strings")
	}
	if aerr := checkCallback(body.CallbackURL); aerr != nil {
		return nil, aerr
	}
	j := s.newJob(cfg, langs, body.CallbackURL)
	j.urlJob, j.paths = true, src.Paths
	return j, nil
}

// newUploadJob reads a multipart create: config, files (audio or ZIP),
// callback_url.
func (s *service) newUploadJob(r *http.Request) (*job, *apiError) {
	f, err := readForm(r, maxZipSize, 0)
	if err != nil {
		return nil, invalid("%v", err)
	}
	defer f.cleanup()
	raw, ok := f.value("config")
	if mt, _, _ := mime.ParseMediaType(f.types["config"]); ok && mt != "application/json" {
		return nil, invalid("the config part must be sent with Content-Type application/json")
	}
	callbackField, _ := f.value("callback_url")
	s.receiveConfig(r, json.RawMessage(raw), callbackField)
	cfg, langs, aerr := checkConfig(json.RawMessage(raw))
	if aerr != nil {
		return nil, aerr
	}
	callback, _ := f.value("callback_url")
	if aerr := checkCallback(callback); aerr != nil {
		return nil, aerr
	}
	ups := f.files["files"]
	if len(ups) == 0 {
		return nil, invalid("files is required: upload at least one audio file or ZIP archive")
	}
	j := s.newJob(cfg, langs, callback)
	for _, up := range ups {
		if aerr := s.addUpload(j, f, up); aerr != nil {
			return nil, aerr
		}
	}
	if len(j.files) > maxJobFiles {
		return nil, &apiError{http.StatusBadRequest, "TOO_MANY_FILES",
			fmt.Sprintf("%d files in one job: at most %d, counting files inside ZIP archives", len(j.files), maxJobFiles)}
	}
	return j, nil
}

// addUpload adds one uploaded part (an audio file or a ZIP archive).
func (s *service) addUpload(j *job, f *form, up upload) *apiError {
	if isZip(up) {
		return s.addZip(j, f, up)
	}
	if up.Size > maxUploadFile {
		return &apiError{http.StatusBadRequest, "FILE_TOO_LARGE",
			fmt.Sprintf("file %s is larger than %s", up.Name, megabytes(maxUploadFile))}
	}
	return s.addAudio(j, up.Name, up.Path)
}

// addAudio analyzes one audio file into a job file record.
func (s *service) addAudio(j *job, name, path string) *apiError {
	jf := &jobFile{id: s.id("file"), path: name, created: j.created}
	j.files = append(j.files, jf)
	if !jobFormat(name) {
		jf.status, jf.errMsg = fileSkipped, "UNSUPPORTED_FORMAT: "+name+" is not a supported audio format"
		return nil
	}
	a, err := s.analyzePath(path)
	if err != nil {
		return &apiError{http.StatusInternalServerError, "INTERNAL_ERROR", "could not read " + name}
	}
	if a.Size == 0 {
		jf.status, jf.errMsg = fileSkipped, "EMPTY_FILE: "+name+" is empty"
		return nil
	}
	if a.Seconds > maxFileAudio.Seconds() {
		return &apiError{http.StatusBadRequest, codeTooLong,
			fmt.Sprintf("file %s is %.0f seconds long: the maximum is 4 hours", name, a.Seconds)}
	}
	jf.a = a
	return nil
}

func pathExt(name string) string { return path.Ext(name) }

// jobFormat reports whether a file name has a documented batch job audio
// format; files of other formats are SKIPPED.
func jobFormat(name string) bool {
	return slices.Contains(jobExtensions, strings.ToLower(pathExt(name)))
}
