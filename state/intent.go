package state

import (
	"errors"
	"slices"
	"time"
)

// JobIntent is journaled just before a batch job create call (SPEC section
// 4). A create whose answer never came back (the process died between the
// call and its record, or the HTTP layer retried a create whose first
// attempt had reached the service) leaves a job in CREATED that voxform
// never recorded. Such a job is never started, so never billed; the intent
// is what lets a later sweep recognise it in the jobs listing and cancel it.
// Intents are cleared once swept; the state file lists the ones still open
// under job_intents, and omits the key when there are none.
type JobIntent struct {
	// ID identifies the intent (random, like a lineage).
	ID string `json:"id"`
	// Created is the local time just before the create call.
	Created time.Time `json:"created"`
	// API is the recognition API of the job (batch).
	API string `json:"api"`
	// Config is what the create sent, as the job status echoes it.
	Config JobIntentConfig `json:"config"`
	// Files is the number of files sent; 0 when unknown (URL prefixes).
	Files int `json:"files,omitempty"`
	// Block names the manifest block the job was for (for the reader).
	Block string `json:"block,omitempty"`
	// Service is the base URL of the service the create went to: only a
	// sweep against that service looks for the intent's orphans.
	Service string `json:"service,omitempty"`
}

// JobIntentConfig is the part of a batch job's config a sweep compares.
type JobIntentConfig struct {
	Model           string `json:"model"`
	LanguageCode    string `json:"language_code"`
	WithDiarization bool   `json:"with_diarization,omitempty"`
	NumSpeakers     *int   `json:"num_speakers,omitempty"`
	IsMultiChannel  bool   `json:"is_multi_channel,omitempty"`
	WithDenoise     *bool  `json:"with_denoise,omitempty"`
}

// Journal operations of job intents.
const (
	opIntent      = "intent"
	opIntentClear = "intent_clear"
)

// RecordJobIntent durably records in before a batch job create call. An
// empty ID and a zero Created are filled in (Created from the recorder's
// clock); the recorded intent is returned.
func (r *Recorder) RecordJobIntent(in JobIntent) (JobIntent, error) {
	if in.ID == "" {
		in.ID = NewLineage()
	}
	if in.Created.IsZero() {
		in.Created = r.now().UTC()
	}
	rec := &record{Op: opIntent, Intent: &in}
	err := r.append(rec, func() { rec.applyIntents(r.state) })
	return in, err
}

// ClearJobIntents durably removes the intents with the given ids (once
// their orphans, if any, were cancelled).
func (r *Recorder) ClearJobIntents(ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	rec := &record{Op: opIntentClear, ClearIntents: ids}
	return r.append(rec, func() { rec.applyIntents(r.state) })
}

// JobIntents returns the open intents, oldest first.
func (r *Recorder) JobIntents() []JobIntent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.state.JobIntents)
}

// applyIntents applies an intent or intent_clear record to f.
func (rec *record) applyIntents(f *File) {
	switch rec.Op {
	case opIntent:
		f.JobIntents = append(slices.Clip(f.JobIntents), *rec.Intent)
	case opIntentClear:
		f.JobIntents = slices.DeleteFunc(slices.Clone(f.JobIntents), func(in JobIntent) bool {
			return slices.Contains(rec.ClearIntents, in.ID)
		})
		if len(f.JobIntents) == 0 {
			f.JobIntents = nil
		}
	}
}

// checkIntentRecord validates an intent record read from a journal.
func checkIntentRecord(rec *record) error {
	if rec.Op == opIntent && (rec.Intent == nil || rec.Intent.ID == "") {
		return errors.New("intent record without an intent")
	}
	return nil
}
