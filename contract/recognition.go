package contract

import (
	"strconv"
	"strings"
	"time"
)

// Recognition defaults (speech-recognition.md).
const (
	// RealtimeDefaultRate is the sample rate realtime recognition is sent
	// at when the manifest names none (16 or 8 kHz PCM).
	RealtimeDefaultRate = 16000
)

// Realtime pace: how fast realtime audio is sent, as a multiple of real
// time (service.realtime_pace). The live service detects speech in audio
// as it is spoken, and its owner's client sends in real time; the
// documents set no pace.
const (
	// PaceUnlimited sends the audio as fast as the connection takes it
	// (service.realtime_pace: unlimited).
	PaceUnlimited = -1
	// MaxPace is the fastest pace a manifest may ask for, short of
	// unlimited.
	MaxPace = 100
)

// joinOr lists v as "a, b or c".
func joinOr(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Batch job limits (speech-recognition.md, "Limits"). A megabyte is
// 1,000,000 bytes, as the service counts.
const (
	MaxJobFiles         = 100
	MaxJobFileBytes     = 10_000_000
	MaxZipBytes         = 50_000_000
	MaxZipExpandedBytes = 200_000_000
	// JobPollInterval is the documented minimum between status polls of a
	// batch job; JobPollIntervalMany that of a job of JobPollManyFiles
	// files or more.
	JobPollInterval     = 10 * time.Second
	JobPollIntervalMany = 30 * time.Second
	JobPollManyFiles    = 100
)

// JobPollIntervalOf is the documented minimum between status polls of a
// batch job of files files.
func JobPollIntervalOf(files int) time.Duration {
	if files >= JobPollManyFiles {
		return JobPollIntervalMany
	}
	return JobPollInterval
}

// Older batch limits (speech-recognition.md, "Limits").
const (
	LegacyMaxFiles = 10
	// LegacyMaxBytes is one call's payload: every file and field.
	LegacyMaxBytes = 80_000_000
	// LegacyPollInterval is the documented minimum between status polls.
	LegacyPollInterval = 60 * time.Second
	// LegacyPartOverhead is what each file part adds to a call beyond its
	// bytes (headers, boundary); LegacyFieldOverhead the room kept for the
	// form fields.
	LegacyPartOverhead  = 1 << 10
	LegacyFieldOverhead = 64 << 10
	// LegacyMaxFileBytes is the largest file one call carries.
	LegacyMaxFileBytes = LegacyMaxBytes - LegacyPartOverhead - LegacyFieldOverhead
)
