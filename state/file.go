package state

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/rare"
)

// FormatVersion is the version of the state file format this voxform reads
// and writes. A file with a higher version is refused (read the version
// first, as Terraform does), so that an older voxform never misreads or
// overwrites a newer state.
const FormatVersion = 1

// Origins of a resource's outputs (Resource.Origin).
const (
	// OriginImported: existing files adopted by 'voxform import'.
	OriginImported = "imported"
	// OriginTake: an earlier take put back by 'voxform use'.
	OriginTake = "take"
	// OriginRecorded: a human recording (a synthesis's recorded:),
	// copied or converted by apply with no service call.
	OriginRecorded = "recorded"
)

// Resource statuses.
const (
	// StatusComplete: the outputs exist and match the recorded hashes.
	StatusComplete = "complete"
	// StatusPending: a remote job was created and recorded; its results are
	// not in yet. A later apply resumes the job instead of creating another.
	StatusPending = "pending"
)

// File is the content of voxform.state.json.
type File struct {
	Version        int                  `json:"version"`
	Lineage        string               `json:"lineage"`
	Serial         int64                `json:"serial"`
	VoxformVersion string               `json:"voxform_version"`
	Resources      map[string]*Resource `json:"resources"`
	// JobIntents are batch job creates whose orphans (if any) are not yet
	// swept; absent from the file when there are none (see JobIntent).
	JobIntents []JobIntent `json:"job_intents,omitempty"`
	// Written are outputs in place whose resource was never recorded (see
	// Written); absent from the file when there are none.
	Written []Written `json:"written,omitempty"`
	// MovedTo is set in a state that "voxform state migrate" copied to
	// another backend (see Moved): the copy left behind, kept for the
	// record, which no command reads or changes as the state.
	MovedTo *Moved `json:"moved_to,omitempty"`
}

// Moved says where a state was migrated, when and by whom.
type Moved struct {
	Backend string    `json:"backend"` // "local" or "pg", with where: see the Describe of the backends
	Where   string    `json:"where"`
	At      time.Time `json:"at"`
	Who     string    `json:"who"`
}

// Resource is what voxform recorded about one address. The API key is never
// part of it.
type Resource struct {
	// Kind is the resource kind: voice, embedding, synthesis, transcription.
	Kind string `json:"kind"`
	// Status is StatusComplete or StatusPending.
	Status string `json:"status"`
	// Fingerprint is the SHA-256 of the canonical request (SPEC section 4).
	Fingerprint string `json:"fingerprint"`
	// Request is the canonical request the fingerprint was computed from,
	// text included, with the content hashes of input files. Set it when
	// recording; a decoded state keeps the request undecoded (a plan of an
	// unchanged project never needs it) and RequestFields decodes it.
	Request map[string]any `json:"-"`
	// rawRequest is the request as read from the file, compact (see
	// compactJSON), or as set by SetRequestJSON.
	rawRequest json.RawMessage
	// Outputs are the files written, with their hashes.
	Outputs []Output `json:"outputs,omitempty"`

	// BilledCharacters is what a synthesis billed.
	BilledCharacters int64 `json:"billed_characters,omitempty"`

	// PreventDestroy is the lifecycle flag prevent_destroy as the
	// manifest declared it when the resource was last made: a plan that
	// would delete it is refused, even once the manifest no longer
	// declares it.
	PreventDestroy bool `json:"prevent_destroy,omitempty"`

	// Origin is where the outputs came from: "" made by the service (or
	// restored from the output cache under the same fingerprint),
	// OriginImported adopted by 'voxform import', OriginTake an earlier
	// take put back by 'voxform use' (Details.Take names it),
	// OriginRecorded a synthesis's recording (recorded:; its request
	// names the file).
	Origin string `json:"origin,omitempty"`

	// details are the fields most resources leave empty (see Details),
	// held out of line.
	details rare.Of[Details]

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Details are the fields of a record that most resources leave empty: a
// transcription's job and what the service reported, an embedding's
// consent, an approval, the chunks of a split text, the take put back. A
// Resource holds them out of line, so that each of a state's 100,000
// syntheses does not carry 200 bytes of empty fields. A Details a
// resource holds is never changed in place (see Edit): a copy of the
// resource may share it.
type Details struct {
	// Remote identifiers.
	RequestIDs []string `json:"request_ids,omitempty"`
	JobID      string   `json:"job_id,omitempty"`
	// JobAPI is the recognition API of JobID: batch or batch_legacy.
	JobAPI string `json:"job_api,omitempty"`
	FileID string `json:"file_id,omitempty"`

	// BilledAudioSeconds is what a transcription billed.
	BilledAudioSeconds float64 `json:"billed_audio_seconds,omitempty"`

	// Transcriptions: the source and what the service reported.
	Source           *Source `json:"source,omitempty"`
	Model            string  `json:"model,omitempty"`
	DetectedLanguage string  `json:"detected_language,omitempty"`
	DurationSeconds  float64 `json:"duration_seconds,omitempty"`

	// Consent is an embedding's consent note, recorded for audit.
	Consent string `json:"consent,omitempty"`

	// Approval is who signed off which outputs and when (voxform
	// approve); nil: never approved. It holds only while the outputs
	// recorded are those approved (Approval.Holds).
	Approval *Approval `json:"approval,omitempty"`

	// Chunks are the requests of a synthesis whose text was split (see
	// ChunkRecord), in order; absent for a text sent in one request.
	Chunks []ChunkRecord `json:"chunks,omitempty"`

	// Redaction is how a transcription's outputs were redacted (nil: not
	// redacted).
	Redaction *Redaction `json:"redaction,omitempty"`

	// Take is, with OriginTake, the fingerprint the outputs were made for
	// (the take put back); the record's own Fingerprint is the request
	// they now stand for.
	Take string `json:"take,omitempty"`
}

// Details returns r's details: a copy, the zero Details when it has none.
// Change them with Edit.
func (r *Resource) Details() Details { return r.details.Get() }

// Edit returns r's details to change: a copy of them that r now holds,
// for r alone (a copy of r made before keeps the details it had).
func (r *Resource) Edit() *Details { return r.details.Edit() }

// dropEmptyDetails lets go of r's details when they are all empty (an
// Edit that set a field to its zero value).
func (r *Resource) dropEmptyDetails() {
	if d := r.details.Peek(); d != nil && d.isZero() {
		r.details.Hold(nil)
	}
}

// WithDetails gives r the details d (none when d is the zero Details)
// and returns r.
func (r *Resource) WithDetails(d Details) *Resource {
	r.details.Set(d, d.isZero())
	return r
}

// isZero says whether every field of d is empty, without reflect's
// allocation (TestDetailsIsZero checks it knows every field).
func (d *Details) isZero() bool {
	return len(d.RequestIDs) == 0 && d.JobID == "" && d.JobAPI == "" && d.FileID == "" && d.BilledAudioSeconds == 0 &&
		d.Source == nil && d.Model == "" && d.DetectedLanguage == "" && d.DurationSeconds == 0 && d.Consent == "" &&
		d.Approval == nil && len(d.Chunks) == 0 && d.Redaction == nil && d.Take == ""
}

// RequestFields returns the recorded request: Request if set, else the
// request read from the file, decoded on each call (nil if there is none).
func (r *Resource) RequestFields() map[string]any {
	if r.Request != nil || len(r.rawRequest) == 0 {
		return r.Request
	}
	var m map[string]any
	if json.Unmarshal(r.rawRequest, &m) != nil {
		return nil
	}
	return m
}

// RequestJSON is the recorded request as compact canonical JSON, as
// SetRequestJSON or the file gave it; nil when Request is set instead (or
// there is none). It is shared: nothing modifies it.
func (r *Resource) RequestJSON() json.RawMessage {
	if r.Request != nil {
		return nil
	}
	return r.rawRequest
}

// SetRequestJSON records raw, the canonical JSON of the request (compact,
// as planner.Desired.RequestJSON returns it), as the request, in place of
// Request. raw is shared, not copied: neither the caller nor the state
// modifies it afterwards.
func (r *Resource) SetRequestJSON(raw json.RawMessage) {
	r.Request = nil
	r.rawRequest = raw
}

// resourcePlain has Resource's fields without its methods.
type resourcePlain Resource

// resourceJSON is the file form of a Resource.
type resourceJSON struct {
	resourcePlain
	*Details
	Request json.RawMessage `json:"request,omitempty"`
}

func (rj *resourceJSON) resource() *Resource {
	r := Resource(rj.resourcePlain)
	if rj.Details != nil {
		r.WithDetails(*rj.Details)
	}
	if len(rj.Request) > 0 && string(rj.Request) != "null" {
		r.rawRequest = compactJSON(rj.Request)
	}
	return &r
}

// compactJSON is raw without its white space, as a request is held in
// memory (an indented state file's requests span lines).
func compactJSON(raw json.RawMessage) json.RawMessage {
	if bytes.IndexByte(raw, '\n') < 0 {
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return bytes.Clone(b.Bytes())
}

// MarshalJSON writes the request (set or as read) under "request".
func (r *Resource) MarshalJSON() ([]byte, error) {
	aux := resourceJSON{resourcePlain: resourcePlain(*r), Details: r.details.Peek(), Request: r.rawRequest}
	if r.Request != nil {
		b, err := marshalNoEscape(r.Request)
		if err != nil {
			return nil, err
		}
		aux.Request = b
	}
	return marshalNoEscape(aux)
}

// UnmarshalJSON reads a resource, refusing unknown fields and keeping the
// request undecoded.
func (r *Resource) UnmarshalJSON(b []byte) error {
	res, err := decodeResource(b)
	if err != nil {
		return err
	}
	*r = *res
	return nil
}

// decodeResource decodes one resource, strictly: no unknown field, and
// nothing after it.
func decodeResource(b []byte) (*Resource, error) {
	var aux resourceJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value for a resource")
	}
	return aux.resource(), nil
}

// fileJSON is the file form of a File; decoding it directly (rather than
// through Resource.UnmarshalJSON) scans the file once.
type fileJSON struct {
	Version        int                      `json:"version"`
	Lineage        string                   `json:"lineage"`
	Serial         int64                    `json:"serial"`
	VoxformVersion string                   `json:"voxform_version"`
	Resources      map[string]*resourceJSON `json:"resources"`
	JobIntents     []JobIntent              `json:"job_intents"`
	Written        []Written                `json:"written"`
	MovedTo        *Moved                   `json:"moved_to"`
}

// Output is one file a resource wrote.
type Output struct {
	Path   string `json:"path"` // relative to the manifest directory
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Format is the transcript format (json, txt, srt, vtt) of a
	// transcription output; empty for other kinds.
	Format string `json:"format,omitempty"`
	// Loudness is what an audio output measured as it was written; nil
	// for other outputs, for audio voxform cannot decode, and in states
	// written before voxform measured it.
	Loudness *Loudness `json:"loudness,omitempty"`
	// Listen is the listening check of a synthesis's audio sent whole;
	// nil without listen: and for every other output.
	Listen *Listen `json:"listen,omitempty"`
	// Delivery, on a synthesis's delivered output (deliver:), says what
	// it was mastered from and to; nil for every other output.
	Delivery *Delivery `json:"delivery,omitempty"`
	// Encoder is the identity of the outside encoder (ffmpeg's version,
	// libraries and flags) that made an output voxform encoded itself: a
	// recording encoded to an mp3 or ogg output. Empty for every other
	// output (a delivery records its encoder in Delivery).
	Encoder string `json:"encoder,omitempty"`
}

// Delivery is how a delivered output was made: the synthesis's audio
// (Source, its SHA-256) mastered to Profile by Encoder. Fingerprint
// covers all three and the profile's rules (planner.
// DeliveryFingerprint): the output cache keeps the file under it.
type Delivery struct {
	Profile     string `json:"profile"`
	Fingerprint string `json:"fingerprint"`
	Source      string `json:"source_sha256"`
	Encoder     string `json:"encoder"`
}

// ChunkRecord is one chunk of a chunked synthesis: the fingerprint of
// its own request, what it bills, and its audio (kept in the output cache
// under that fingerprint) before it was joined into the output.
type ChunkRecord struct {
	Fingerprint string `json:"fingerprint"`
	Characters  int64  `json:"characters"`
	SHA256      string `json:"sha256"`
	Size        int64  `json:"size"`
	// Start and End place the chunk in the joined output, in seconds
	// (the joiner's clock: MP3 priming and Opus pre-skip included).
	// Zero in states written before voxform recorded them.
	Start float64 `json:"start_seconds,omitempty"`
	End   float64 `json:"end_seconds,omitempty"`
	// Loudness, Lead and Tail are the chunk's own loudness and the
	// silence at its start and end, in seconds: what its seams are
	// judged by. Listen is its listening check. All are absent without
	// listen:.
	Loudness *Loudness `json:"loudness,omitempty"`
	Lead     float64   `json:"lead_silence_seconds,omitempty"`
	Tail     float64   `json:"tail_silence_seconds,omitempty"`
	Listen   *Listen   `json:"listen,omitempty"`
}

// Source is the input of a transcription: a local file with its content hash,
// or a URL.
type Source struct {
	Path string `json:"path,omitempty"`
	// Name is the file name a batch job was given for it (the job's
	// original_path): unique in its job, so that each file record maps
	// back to exactly one resource.
	Name   string `json:"name,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	URL    string `json:"url,omitempty"`
}

// New returns an empty state with a fresh lineage.
func New() *File {
	return &File{
		Version:        FormatVersion,
		Lineage:        NewLineage(),
		VoxformVersion: VoxformVersion,
		Resources:      map[string]*Resource{},
	}
}

// NewLineage returns a random identifier (UUID version 4 form).
func NewLineage() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("state: no randomness: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Addresses returns the recorded addresses, sorted.
func (f *File) Addresses() []string {
	out := make([]string, 0, len(f.Resources))
	for a := range f.Resources {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Clone returns a copy of f whose resource map may be changed independently.
// Resources themselves are shared: they are replaced, never mutated.
func (f *File) Clone() *File {
	c := *f
	c.Resources = make(map[string]*Resource, len(f.Resources))
	for a, r := range f.Resources {
		c.Resources[a] = r
	}
	c.JobIntents = slices.Clone(f.JobIntents)
	c.Written = slices.Clone(f.Written)
	return &c
}

// ErrNewerVersion is returned for a state file written by a newer voxform.
var ErrNewerVersion = errors.New("state file format is newer than this voxform supports")

// Decode reads a state file of at most MaxStateSize bytes. The version
// decides first: a version this voxform does not know is refused with that
// message, whatever else the file holds. (The happy path parses once; the
// version is re-read on its own only when the full decode fails or finds a
// foreign version.)
func Decode(r io.Reader) (*File, error) {
	return decode(r, MaxStateSize)
}

// decode is Decode reading at most limit bytes.
func decode(r io.Reader, limit int64) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read state: more than %s, the limit of a state file", sizeString(limit))
	}
	return decodeBytes(data)
}

// parallelDecodeMin is the number of resources from which decodeBytes
// decodes them on every CPU.
const parallelDecodeMin = 2000

// decodeBytes is Decode of data, read whole already. A large state's
// resources are decoded on every CPU (a state of 100,000 took seconds on
// one); anything amiss is decoded again in one piece, for the error that
// says where.
func decodeBytes(data []byte) (*File, error) {
	if f, ok := decodeParallel(data); ok {
		return f, nil
	}
	return decodeSerial(data)
}

// decodeParallel decodes data with its resources shared among the CPUs;
// ok is false when data is not a valid state of this version with at
// least parallelDecodeMin resources.
func decodeParallel(data []byte) (*File, bool) {
	if runtime.GOMAXPROCS(0) == 1 || len(data) < parallelDecodeMin*200 {
		return nil, false
	}
	rest, members, ok := splitResources(data)
	if !ok || len(members) < parallelDecodeMin {
		return nil, false
	}
	f, ok := decodeRest(rest, len(members))
	if !ok {
		return nil, false
	}
	raws := make(map[string][]byte, len(members))
	for _, m := range members {
		raws[m.key] = m.value // a key given twice: the last, as encoding/json has it
	}
	addrs := make([]string, 0, len(raws))
	for a := range raws {
		addrs = append(addrs, a)
	}
	decoded := make([]*Resource, len(addrs))
	workers := runtime.GOMAXPROCS(0)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(addrs) && !failed.Load(); i += workers {
				raw := raws[addrs[i]]
				if string(raw) == "null" {
					failed.Store(true)
					return
				}
				r, err := decodeResource(raw)
				if err != nil {
					failed.Store(true)
					return
				}
				decoded[i] = r
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, false
	}
	for i, a := range addrs {
		f.Resources[a] = decoded[i]
	}
	if f.checkEntries() != nil {
		return nil, false
	}
	return f, true
}

// decodeRest decodes a state file whose resources were taken out by
// splitResources, n of them; ok is false unless it is of this version.
func decodeRest(rest []byte, n int) (*File, bool) {
	var fr fileJSON
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if dec.Decode(&fr) != nil || dec.More() || fr.Version != FormatVersion {
		return nil, false
	}
	return &File{Version: fr.Version, Lineage: fr.Lineage, Serial: fr.Serial, VoxformVersion: fr.VoxformVersion,
		Resources: make(map[string]*Resource, n), JobIntents: fr.JobIntents, Written: fr.Written,
		MovedTo: fr.MovedTo}, true
}

// member is a member of a JSON object: its key, unquoted, and its value.
type member struct {
	key   string
	value []byte
}

// splitResources finds the members of the object "resources" of the JSON
// object data without decoding them, and returns data with that object
// emptied (for the rest to be decoded as usual) and the members, whose
// values are slices of data. ok is false when data is not an object of
// that shape; the JSON is not checked further (decoding the parts does).
func splitResources(data []byte) (rest []byte, members []member, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, nil, false
	}
	start, end := -1, -1
	for i = skipSpace(data, i+1); i < len(data) && data[i] != '}'; {
		k, j, ok := scanKey(data, i)
		if !ok {
			return nil, nil, false
		}
		j = skipSpace(data, j)
		v := j
		if k == "resources" && j < len(data) && data[j] == '{' {
			if start >= 0 {
				return nil, nil, false // twice
			}
			start = j
			j = skipSpace(data, j+1)
			for j < len(data) && data[j] != '}' {
				rk, vj, ok := scanKey(data, j)
				if !ok {
					return nil, nil, false
				}
				vj = skipSpace(data, vj)
				ve, ok := scanValue(data, vj)
				if !ok {
					return nil, nil, false
				}
				members = append(members, member{rk, data[vj:ve]})
				if j, ok = next(data, ve); !ok {
					return nil, nil, false
				}
			}
			if j >= len(data) {
				return nil, nil, false
			}
			end = j + 1
			j = end
		} else if j, ok = scanValue(data, v); !ok {
			return nil, nil, false
		}
		if i, ok = next(data, j); !ok {
			return nil, nil, false
		}
	}
	if start < 0 || i >= len(data) || skipSpace(data, i+1) != len(data) {
		return nil, nil, false // trailing data: decodeSerial says so
	}
	rest = make([]byte, 0, len(data)-(end-start)+2)
	rest = append(append(append(rest, data[:start]...), "{}"...), data[end:]...)
	return rest, members, true
}

// scanKey reads the key at data[i] and the colon after it; j is past the
// colon.
func scanKey(data []byte, i int) (key string, j int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return "", 0, false
	}
	e, ok := scanString(data, i)
	if !ok {
		return "", 0, false
	}
	key, ok = unquoteKey(data[i:e])
	if !ok && json.Unmarshal(data[i:e], &key) != nil { // as encoding/json reads it
		return "", 0, false
	}
	j = skipSpace(data, e)
	if j >= len(data) || data[j] != ':' {
		return "", 0, false
	}
	return key, j + 1, true
}

// unquoteKey reads the JSON string q as encoding/json does, when it holds
// only printable ASCII and no escape but \" and \\ (a state's addresses);
// ok is false for anything else, left to encoding/json.
func unquoteKey(q []byte) (string, bool) {
	b := make([]byte, 0, len(q))
	for i := 1; i < len(q)-1; i++ {
		switch c := q[i]; {
		case c < 0x20 || c >= utf8.RuneSelf:
			return "", false
		case c != '\\':
			b = append(b, c)
		case i+2 < len(q) && (q[i+1] == '"' || q[i+1] == '\\'):
			b = append(b, q[i+1])
			i++
		default:
			return "", false
		}
	}
	return string(b), true
}

// next passes the comma after a member at data[i:], or stops at the
// closing brace; anything else is not an object.
func next(data []byte, i int) (int, bool) {
	i = skipSpace(data, i)
	switch {
	case i < len(data) && data[i] == ',':
		j := skipSpace(data, i+1)
		return j, j < len(data) && data[j] == '"'
	case i < len(data) && data[i] == '}':
		return i, true
	}
	return 0, false
}

// scanString returns the end of the string starting at data[i] (a quote):
// past the next quote not escaped, that is not after an odd number of
// backslashes.
func scanString(data []byte, i int) (int, bool) {
	for j := i + 1; ; j++ {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		b := j - 1
		for b > i && data[b] == '\\' {
			b--
		}
		if (j-1-b)%2 == 0 {
			return j + 1, true
		}
	}
}

// scanValue returns the end of the value starting at data[i].
func scanValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return scanString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				e, ok := scanString(data, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for ; j < len(data); j++ {
		if c := data[j]; c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			break
		}
	}
	return j, j > i
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// decodeSerial is decodeBytes in one piece.
func decodeSerial(data []byte) (*File, error) {
	var fj fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	derr := dec.Decode(&fj)
	if derr == nil {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read state: data after the state's JSON object, at byte %d: the file was appended to or damaged", dec.InputOffset())
		}
	}
	f := File{Version: fj.Version, Lineage: fj.Lineage, Serial: fj.Serial, VoxformVersion: fj.VoxformVersion,
		Resources: make(map[string]*Resource, len(fj.Resources)), JobIntents: fj.JobIntents, Written: fj.Written,
		MovedTo: fj.MovedTo}
	if derr != nil || f.Version != FormatVersion {
		if err := checkVersion(data); err != nil {
			return nil, err
		}
	}
	if derr != nil {
		return nil, fmt.Errorf("read state: %s", jsonErr(data, derr))
	}
	for a, rj := range fj.Resources {
		if rj == nil {
			return nil, fmt.Errorf("read state: resource %s is null", a)
		}
		f.Resources[a] = rj.resource()
	}
	if err := f.checkEntries(); err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	return &f, nil
}

// checkVersion reads only the version of a state file.
func checkVersion(data []byte) error {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("read state: %s", jsonErr(data, err))
	}
	switch {
	case head.Version == nil:
		return errors.New("read state: no version field: not a voxform state file")
	case *head.Version > FormatVersion:
		return fmt.Errorf("read state: version %d: %w (%d); upgrade voxform", *head.Version, ErrNewerVersion, FormatVersion)
	case *head.Version < 1:
		return fmt.Errorf("read state: unknown version %d", *head.Version)
	}
	return nil
}

// jsonErr adds a line number to a JSON syntax error.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, err)
	}
	return err.Error()
}

// Encode writes f as pretty-printed JSON with sorted keys and no HTML
// escaping (audio tags such as <laugh> stay readable), ending in a newline:
// the bytes MarshalSorted(f) gives, written a resource at a time, so that
// a state of 100,000 resources is never held whole as JSON (each is
// marshalled once and its keys sorted in place: see appendSorted).
func (f *File) Encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := f.encode(bw); err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return bw.Flush()
}

// encode writes the members of f's object in key order (that of
// MarshalSorted: job_intents, lineage, moved_to, resources, serial,
// version, voxform_version, written), each value indented at its depth.
func (f *File) encode(w *bufio.Writer) error {
	first := true
	var s sorter
	member := func(key string, v any, depth int) error {
		if !first {
			w.WriteString(",")
		}
		first = false
		w.WriteString("\n" + strings.Repeat("  ", depth))
		k, err := marshalNoEscape(key)
		if err != nil {
			return err
		}
		w.Write(k)
		w.WriteString(": ")
		return writeIndented(w, &s, v, strings.Repeat("  ", depth))
	}
	w.WriteString("{")
	if len(f.JobIntents) > 0 {
		if err := member("job_intents", f.JobIntents, 1); err != nil {
			return err
		}
	}
	if err := member("lineage", f.Lineage, 1); err != nil {
		return err
	}
	if f.MovedTo != nil {
		if err := member("moved_to", f.MovedTo, 1); err != nil {
			return err
		}
	}
	if !first {
		w.WriteString(",")
	}
	if f.Resources == nil {
		w.WriteString("\n  \"resources\": null")
	} else if len(f.Resources) == 0 {
		w.WriteString("\n  \"resources\": {}")
	} else {
		w.WriteString("\n  \"resources\": {")
		first = true
		for _, addr := range f.Addresses() {
			if err := member(addr, f.Resources[addr], 2); err != nil {
				return fmt.Errorf("%s: %w", addr, err)
			}
		}
		w.WriteString("\n  }")
	}
	first = false
	for _, m := range []struct {
		key string
		v   any
	}{{"serial", f.Serial}, {"version", f.Version}, {"voxform_version", f.VoxformVersion}} {
		if err := member(m.key, m.v, 1); err != nil {
			return err
		}
	}
	if len(f.Written) > 0 {
		if err := member("written", f.Written, 1); err != nil {
			return err
		}
	}
	w.WriteString("\n}\n")
	return nil
}

// writeIndented writes v as MarshalSorted would at a depth whose lines
// start with prefix (the first line's prefix already written).
func writeIndented(w *bufio.Writer, s *sorter, v any, prefix string) error {
	var raw []byte
	var err error
	if r, ok := v.(*Resource); ok && r != nil {
		raw, err = r.MarshalJSON() // compact already: not compacted again
	} else {
		raw, err = marshalNoEscape(v)
	}
	if err != nil {
		return err
	}
	if len(raw) > 0 && raw[0] != '{' && raw[0] != '[' { // a scalar: as it is
		_, err := w.Write(raw)
		return err
	}
	s.buf, err = s.appendSorted(s.buf[:0], raw, prefix)
	if err != nil {
		return err
	}
	_, err = w.Write(s.buf)
	return err
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MatchAddress reports whether addr is pattern or an instance of the block
// pattern names: "synthesis.menu" matches `synthesis.menu["billing"]`.
func MatchAddress(pattern, addr string) bool {
	if addr == pattern {
		return true
	}
	return strings.HasPrefix(addr, pattern) && strings.HasPrefix(addr[len(pattern):], "[")
}
