package state

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/voxform/voxform/internal/rare"
)

// A snapshot's resources follow its head in blocks of at most
// snapshotChunk resources. A block is three sections, each its length (a
// uvarint) then its bytes: the contents of the block's strings one after
// the other, its raw JSON (requests, and resources kept whole), and its
// records, which give each string's and each raw value's length and the
// numbers. A block's strings are read as one string and each field is a
// slice of it, and the resources, outputs and loudness records are
// allocated many at a time: decoding 100,000 resources makes some hundreds
// of allocations, where gob made one for each string.
//
// A record is its flags (recordWhole: the resource is in the raw section
// in its file form, for the rare fields below; recordPreventDestroy), its
// address, then, unless whole: kind, status, fingerprint, request (raw),
// outputs (a count, then path, SHA-256, size, format, and loudness: a
// flags byte and the values it says are present), request IDs (a count,
// then each), job ID, job API, file ID, billed characters, billed audio
// seconds, model, detected language, duration, consent, origin, take,
// created and updated (each time.Time.MarshalBinary, length first).
//
// A resource holding anything else (a transcription's source, an approval,
// chunks, a redaction, an output's listening check or delivery: fields the
// resources of a large state seldom have, or any field added later) is kept
// whole, in its file form: see compact.

// Record flags.
const (
	recordWhole          = 1
	recordPreventDestroy = 2
)

// Loudness flags of an output's record.
const (
	loudPresent    = 1
	loudIntegrated = 2
	loudTruePeak   = 4
	loudSilent     = 8
)

// blockEncoder builds one block of a snapshot's resources.
type blockEncoder struct {
	strs, raws, recs []byte
	n                int // resources in the block
}

func (e *blockEncoder) uvarint(v uint64) { e.recs = binary.AppendUvarint(e.recs, v) }
func (e *blockEncoder) varint(v int64)   { e.recs = binary.AppendVarint(e.recs, v) }
func (e *blockEncoder) float(v float64) {
	e.recs = binary.LittleEndian.AppendUint64(e.recs, math.Float64bits(v))
}

func (e *blockEncoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.strs = append(e.strs, s...)
}

// raw writes b; nil and empty differ (0: nil, else the length plus one).
func (e *blockEncoder) raw(b []byte) {
	if b == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(b)) + 1)
	e.raws = append(e.raws, b...)
}

func (e *blockEncoder) time(t time.Time) error {
	b, err := t.MarshalBinary()
	if err != nil {
		return err
	}
	e.uvarint(uint64(len(b)))
	e.recs = append(e.recs, b...)
	return nil
}

// add writes the record of r at addr, its request as the compact JSON
// raw.
func (e *blockEncoder) add(addr string, r *Resource, raw []byte) error {
	e.n++
	if !compact(r) {
		return e.addWhole(addr, r)
	}
	var flags uint64
	if r.PreventDestroy {
		flags |= recordPreventDestroy
	}
	e.uvarint(flags)
	e.str(addr)
	e.str(r.Kind)
	e.str(r.Status)
	e.str(r.Fingerprint)
	e.raw(raw)
	e.uvarint(uint64(len(r.Outputs)))
	for i := range r.Outputs {
		e.output(&r.Outputs[i])
	}
	dt := r.Details()
	e.uvarint(uint64(len(dt.RequestIDs)))
	for _, id := range dt.RequestIDs {
		e.str(id)
	}
	e.str(dt.JobID)
	e.str(dt.JobAPI)
	e.str(dt.FileID)
	e.varint(r.BilledCharacters)
	e.float(dt.BilledAudioSeconds)
	e.str(dt.Model)
	e.str(dt.DetectedLanguage)
	e.float(dt.DurationSeconds)
	e.str(dt.Consent)
	e.str(r.Origin)
	e.str(dt.Take)
	if err := e.time(r.CreatedAt); err != nil {
		return err
	}
	return e.time(r.UpdatedAt)
}

// addWhole writes the record of r at addr kept whole, in its file form.
func (e *blockEncoder) addWhole(addr string, r *Resource) error {
	e.uvarint(recordWhole)
	e.str(addr)
	b, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	e.raw(b)
	return nil
}

func (e *blockEncoder) output(o *Output) {
	e.str(o.Path)
	e.str(o.SHA256)
	e.varint(o.Size)
	e.str(o.Format)
	var flags byte
	if l := o.Loudness; l != nil {
		flags = loudPresent
		if l.Integrated != nil {
			flags |= loudIntegrated
		}
		if l.TruePeak != nil {
			flags |= loudTruePeak
		}
		if l.Silent {
			flags |= loudSilent
		}
	}
	e.recs = append(e.recs, flags)
	if flags&loudIntegrated != 0 {
		e.float(*o.Loudness.Integrated)
	}
	if flags&loudTruePeak != 0 {
		e.float(*o.Loudness.TruePeak)
	}
}

// flush writes the block to w and empties it.
func (e *blockEncoder) flush(w *bufio.Writer) error {
	for _, s := range [][]byte{e.strs, e.raws, e.recs} {
		w.Write(binary.AppendUvarint(nil, uint64(len(s))))
		if _, err := w.Write(s); err != nil {
			return err
		}
	}
	e.strs, e.raws, e.recs, e.n = e.strs[:0], e.raws[:0], e.recs[:0], 0
	return nil
}

// compact says whether a record holds all of r: whether r has nothing
// but the fields a record has (see the top of this file). It compares
// with the zero value what is left once those are cleared, so that a
// field added to Resource, Output or Loudness is kept whole until the
// record learns it.
func compact(r *Resource) bool {
	rest := *r
	rest.Kind, rest.Status, rest.Fingerprint, rest.Request, rest.rawRequest = "", "", "", nil, nil
	rest.Outputs, rest.BilledCharacters, rest.PreventDestroy, rest.Origin = nil, 0, false, ""
	rest.CreatedAt, rest.UpdatedAt, rest.details = time.Time{}, time.Time{}, rare.Of[Details]{}
	if !reflect.ValueOf(rest).IsZero() {
		return false
	}
	dt := r.Details()
	dt.RequestIDs, dt.JobID, dt.JobAPI, dt.FileID = nil, "", "", ""
	dt.BilledAudioSeconds, dt.Model, dt.DetectedLanguage = 0, "", ""
	dt.DurationSeconds, dt.Consent, dt.Take = 0, "", ""
	if !dt.isZero() {
		return false
	}
	for _, o := range r.Outputs {
		o.Path, o.SHA256, o.Size, o.Format = "", "", 0, ""
		if l := o.Loudness; l != nil {
			lr := *l
			lr.Integrated, lr.TruePeak, lr.Silent = nil, nil, false
			if !reflect.ValueOf(lr).IsZero() {
				return false
			}
			o.Loudness = nil
		}
		if !reflect.ValueOf(o).IsZero() {
			return false
		}
	}
	return true
}

// errBlock is any flaw of a block: the snapshot is not used.
var errBlock = errors.New("not a snapshot block of this version")

// blockDecoder reads the blocks of a snapshot's resources, allocating
// what they decode to many at a time (see arena). Its arenas' chunks are
// sized by newBlockDecoder.
type blockDecoder struct {
	strs    string
	raws    []byte
	recs    []byte
	scratch []byte
	// budget is what the rest of the file can hold: no section is
	// allocated larger.
	budget int64
	res    arena[Resource]
	outs   arena[Output]
	louds  arena[Loudness]
	floats arena[float64]
	ids    arena[string]
	dets   arena[Details]
	// bad is set at the first flaw of the records (see fail).
	bad bool
}

// newBlockDecoder is a decoder of n resources in at most budget bytes.
func newBlockDecoder(n int, budget int64) *blockDecoder {
	c := min(n, arenaChunk) // a resource has about one of each
	return &blockDecoder{budget: budget, res: arena[Resource]{chunk: c}, outs: arena[Output]{chunk: c},
		louds: arena[Loudness]{chunk: c}, floats: arena[float64]{chunk: 2 * c}, ids: arena[string]{chunk: c}, dets: arena[Details]{chunk: c}}
}

// read reads the next block from r.
func (d *blockDecoder) read(r *bufio.Reader) error {
	for i := range 3 {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(d.budget) {
			return errBlock
		}
		d.budget -= int64(n)
		switch i {
		case 0:
			if d.strs, err = d.readString(r, int(n)); err != nil {
				return err
			}
		case 1:
			d.raws = make([]byte, n) // kept: requests are slices of it
			if _, err := io.ReadFull(r, d.raws); err != nil {
				return err
			}
		case 2:
			if uint64(cap(d.recs)) < n {
				d.recs = make([]byte, n) // reused: records are not kept
			}
			d.recs = d.recs[:n]
			if _, err := io.ReadFull(r, d.recs); err != nil {
				return err
			}
		}
	}
	return nil
}

// readString reads n bytes of r as one string, without a copy.
func (d *blockDecoder) readString(r io.Reader, n int) (string, error) {
	var sb strings.Builder
	sb.Grow(n)
	if len(d.scratch) < min(n, 32<<10) {
		d.scratch = make([]byte, min(n, 32<<10))
	}
	for sb.Len() < n {
		m, err := r.Read(d.scratch[:min(len(d.scratch), n-sb.Len())])
		sb.Write(d.scratch[:m])
		if err != nil && sb.Len() < n {
			return "", err
		}
	}
	return sb.String(), nil
}

// fail marks the block flawed: every read after it gives zero values.
func (d *blockDecoder) fail() { d.bad, d.recs = true, nil }

// skip passes the n bytes of the records a varint took (n <= 0: it was
// not one, see binary.Uvarint).
func (d *blockDecoder) skip(n int) {
	if n <= 0 {
		d.fail()
		return
	}
	d.recs = d.recs[n:]
}

func (d *blockDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.recs)
	d.skip(n)
	return v
}

func (d *blockDecoder) varint() int64 {
	v, n := binary.Varint(d.recs)
	d.skip(n)
	return v
}

func (d *blockDecoder) float() float64 {
	if len(d.recs) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.recs))
	d.recs = d.recs[8:]
	return v
}

func (d *blockDecoder) byte() byte {
	if len(d.recs) == 0 {
		d.fail()
		return 0
	}
	b := d.recs[0]
	d.recs = d.recs[1:]
	return b
}

func (d *blockDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.strs)) {
		d.fail()
		return ""
	}
	s := d.strs[:n]
	d.strs = d.strs[n:]
	return s
}

func (d *blockDecoder) raw() []byte {
	n := d.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(d.raws)) {
		d.fail()
		return nil
	}
	b := d.raws[: n-1 : n-1]
	d.raws = d.raws[n-1:]
	return b
}

func (d *blockDecoder) time() time.Time {
	n := d.uvarint()
	var t time.Time
	if n > uint64(len(d.recs)) || t.UnmarshalBinary(d.recs[:n]) != nil {
		d.fail()
		return time.Time{}
	}
	d.recs = d.recs[n:]
	return t
}

// count is a count of items of at least min bytes each in the records
// left: no more can follow.
func (d *blockDecoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.recs)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

// records decodes the block's records into m; a flaw is errBlock.
func (d *blockDecoder) records(m map[string]*Resource) error {
	d.bad = false
	for len(d.recs) > 0 && !d.bad {
		flags := d.uvarint()
		addr := d.str()
		if _, dup := m[addr]; dup || flags&^(recordWhole|recordPreventDestroy) != 0 || d.bad {
			return errBlock
		}
		if flags&recordWhole != 0 {
			r, err := decodeResource(d.raw())
			if err != nil || d.bad {
				return errBlock
			}
			m[addr] = r
			continue
		}
		r := &d.res.take(1)[0]
		r.PreventDestroy = flags&recordPreventDestroy != 0
		d.resource(r)
		m[addr] = r
	}
	if d.bad || len(d.strs) != 0 || len(d.raws) != 0 {
		return errBlock
	}
	return nil
}

// resource decodes the fields of a compact record into r.
func (d *blockDecoder) resource(r *Resource) {
	r.Kind, r.Status, r.Fingerprint = d.str(), d.str(), d.str()
	r.rawRequest = d.raw()
	if n := d.count(5); n > 0 {
		r.Outputs = d.outs.take(n)
		for i := range r.Outputs {
			d.output(&r.Outputs[i])
		}
	}
	var dt Details
	if n := d.count(1); n > 0 {
		dt.RequestIDs = d.ids.take(n)
		for i := range dt.RequestIDs {
			dt.RequestIDs[i] = d.str()
		}
	}
	dt.JobID, dt.JobAPI, dt.FileID = d.str(), d.str(), d.str()
	r.BilledCharacters, dt.BilledAudioSeconds = d.varint(), d.float()
	dt.Model, dt.DetectedLanguage, dt.DurationSeconds = d.str(), d.str(), d.float()
	dt.Consent, r.Origin, dt.Take = d.str(), d.str(), d.str()
	r.CreatedAt, r.UpdatedAt = d.time(), d.time()
	if !dt.isZero() {
		p := &d.dets.take(1)[0]
		*p = dt
		r.details.Hold(p)
	}
}

func (d *blockDecoder) output(o *Output) {
	o.Path, o.SHA256, o.Size, o.Format = d.str(), d.str(), d.varint(), d.str()
	flags := d.byte()
	if flags&^(loudPresent|loudIntegrated|loudTruePeak|loudSilent) != 0 || flags != 0 && flags&loudPresent == 0 {
		d.fail()
	}
	if flags == 0 || d.bad {
		return
	}
	l := &d.louds.take(1)[0]
	l.Silent = flags&loudSilent != 0
	if flags&loudIntegrated != 0 {
		v := &d.floats.take(1)[0]
		*v = d.float()
		l.Integrated = v
	}
	if flags&loudTruePeak != 0 {
		v := &d.floats.take(1)[0]
		*v = d.float()
		l.TruePeak = v
	}
	o.Loudness = l
}

// arena hands out slices of larger ones, so that many small values are
// one allocation. A slice it hands out has no room past its end: an
// append to it copies, never writes over its neighbour.
type arena[T any] struct {
	buf []T
	// chunk is how many values it allocates at a time (more when one
	// slice asks for more); 0: arenaChunk.
	chunk int
}

// arenaChunk is how many values an arena allocates at a time by default.
const arenaChunk = 1024

func (a *arena[T]) take(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]T, 0, max(n, cmp.Or(a.chunk, arenaChunk)))
	}
	i := len(a.buf)
	a.buf = a.buf[:i+n]
	return a.buf[i : i+n : i+n]
}
