package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
)

// FormatVersion is the version of the entry format and of the layout
// (v1/entries, v1/blobs). An entry of another version is malformed.
const FormatVersion = 1

// MaxEntrySize bounds an entry file read, locally or from a remote: a
// larger one is malformed. Real entries take a few hundred bytes.
const MaxEntrySize = 1 << 20

// ErrCorrupt is wrapped by every error about content that does not match
// its SHA-256 or size, and about a malformed entry.
var ErrCorrupt = errors.New("corrupt cache entry")

// Entry describes the outputs of one fingerprint.
type Entry struct {
	Version     int       `json:"version"` // FormatVersion
	Fingerprint string    `json:"fingerprint"`
	Kind        string    `json:"kind"` // synthesis, embedding, transcription
	Files       []File    `json:"files"`
	Meta        Meta      `json:"meta"`
	CreatedAt   time.Time `json:"created_at"`
}

// File is one output of an entry, stored as the blob named by its SHA-256.
type File struct {
	Role   string `json:"role"`   // audio, embedding, delivered, or a transcript format: json, txt, srt, vtt
	SHA256 string `json:"sha256"` // lowercase hex
	Size   int64  `json:"size"`
}

// Meta is what an output's request learned besides its files.
type Meta struct {
	DurationSeconds  float64 `json:"duration_seconds,omitempty"`
	DetectedLanguage string  `json:"detected_language,omitempty"`
	Model            string  `json:"model,omitempty"`
	// The loudness of a synthesis's audio as measured when it was made
	// (state.Loudness), absent from entries of older voxforms: a field an
	// older voxform does not know is ignored, so the format version is
	// unchanged.
	IntegratedLUFS *float64 `json:"integrated_lufs,omitempty"`
	TruePeakDBTP   *float64 `json:"true_peak_dbtp,omitempty"`
	Silent         bool     `json:"silent,omitempty"`
}

// File returns the file of the role.
func (e *Entry) File(role string) (File, bool) {
	for _, f := range e.Files {
		if f.Role == role {
			return f, true
		}
	}
	return File{}, false
}

// A delivered output (a synthesis's audio mastered to a delivery
// profile) is kept in an entry of kind KindDelivery, its one file of role
// RoleDelivered, under the output's own fingerprint.
const (
	KindDelivery  = "delivery"
	RoleDelivered = "delivered"
)

// RoleRedactedAudio is the role of a redacted transcription's copy of its
// recording, every redacted span silenced (it holds no more than the
// redacted transcript says).
const RoleRedactedAudio = "redacted_audio"

// kinds are the kinds of resource an entry may be of.
var kinds = map[string]bool{"synthesis": true, "embedding": true, "transcription": true, KindDelivery: true}

// roles are the roles a file may have.
var roles = map[string]bool{
	"audio": true, "embedding": true,
	"json": true, "txt": true, "srt": true, "vtt": true,
	RoleDelivered: true, RoleRedactedAudio: true,
}

// ValidKey reports whether s can name an entry or a blob: 64 lowercase
// hexadecimal digits, as a SHA-256 is written. Nothing else ever becomes
// part of a path or a key.
func ValidKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkFingerprint refuses a fingerprint that cannot name an entry.
func checkFingerprint(fp string) error {
	if !ValidKey(fp) {
		return fmt.Errorf("invalid fingerprint %.80q: want 64 lowercase hexadecimal digits", fp)
	}
	return nil
}

// checkSHA refuses a SHA-256 that cannot name a blob.
func checkSHA(sha string) error {
	if !ValidKey(sha) {
		return fmt.Errorf("invalid sha256 %.80q: want 64 lowercase hexadecimal digits", sha)
	}
	return nil
}

// entryKey is the slash-separated path of fp's entry below the cache root.
func entryKey(fp string) string {
	return path.Join("v1", "entries", fp[:2], fp+".json")
}

// blobKey is the slash-separated path of sha's blob below the cache root.
func blobKey(sha string) string {
	return path.Join("v1", "blobs", sha[:2], sha)
}

// indexKey is the slash-separated path of the index segment name below
// the cache root.
func indexKey(name string) string {
	return path.Join("v1", "index", name)
}

// indexPrefix is the slash-separated path of the index's segments.
const indexPrefix = "v1/index/"

// entryFromName returns the fingerprint that the entry file name in the
// directory dir (the two-digit shard) stands for, if it is one.
func entryFromName(dir, name string) (string, bool) {
	fp, ok := strings.CutSuffix(name, ".json")
	if !ok || !ValidKey(fp) || fp[:2] != dir {
		return "", false
	}
	return fp, true
}

// blobFromName reports whether name in the shard dir is a blob.
func blobFromName(dir, name string) bool {
	return ValidKey(name) && name[:2] == dir
}

// validate checks e as the entry of fp. Its errors wrap ErrCorrupt.
func (e *Entry) validate(fp string) error {
	if e.Version != FormatVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrCorrupt, e.Version, FormatVersion)
	}
	if e.Fingerprint != fp {
		return fmt.Errorf("%w: fingerprint %.80q, want %s", ErrCorrupt, e.Fingerprint, fp)
	}
	switch {
	case e.Kind == "":
		return fmt.Errorf("%w: no kind", ErrCorrupt)
	case !kinds[e.Kind]:
		return fmt.Errorf("%w: unknown kind %.40q", ErrCorrupt, e.Kind)
	}
	seen := map[string]bool{}
	for _, f := range e.Files {
		switch {
		case !roles[f.Role]:
			return fmt.Errorf("%w: unknown file role %.40q", ErrCorrupt, f.Role)
		case seen[f.Role]:
			return fmt.Errorf("%w: two files of role %s", ErrCorrupt, f.Role)
		case !ValidKey(f.SHA256):
			return fmt.Errorf("%w: file %s: invalid sha256 %.80q", ErrCorrupt, f.Role, f.SHA256)
		case f.Size < 0:
			return fmt.Errorf("%w: file %s: negative size", ErrCorrupt, f.Role)
		}
		seen[f.Role] = true
	}
	return nil
}

// DecodeEntry reads the entry of fp from r as every reader of the cache
// does, local or remote: at most MaxEntrySize bytes of one JSON object,
// validated. Its errors wrap ErrCorrupt, except those of reading r.
func DecodeEntry(r io.Reader, fp string) (*Entry, error) { return decodeEntry(r, fp) }

// decodeEntry reads the entry of fp from r: at most MaxEntrySize bytes of
// one JSON object, validated. Its errors wrap ErrCorrupt, except those of
// reading r.
func decodeEntry(r io.Reader, fp string) (*Entry, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEntrySize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxEntrySize {
		return nil, fmt.Errorf("%w: larger than the limit of %d bytes", ErrCorrupt, MaxEntrySize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var e Entry
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the entry", ErrCorrupt)
	}
	if err := e.validate(fp); err != nil {
		return nil, err
	}
	return &e, nil
}

// encode is e as stored: indented JSON and a newline.
func (e *Entry) encode() ([]byte, error) {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// prepare returns the entry to store for e: a copy with the format
// version and a creation time filled in, checked like a read entry.
func prepare(e *Entry) (*Entry, error) {
	if e == nil {
		return nil, errors.New("no entry")
	}
	if err := checkFingerprint(e.Fingerprint); err != nil {
		return nil, err
	}
	c := *e
	c.Files = append([]File(nil), e.Files...)
	if c.Version == 0 {
		c.Version = FormatVersion
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = time.Now().UTC().Truncate(time.Second)
	}
	if err := c.validate(c.Fingerprint); err != nil {
		return nil, err
	}
	return &c, nil
}
