package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// TakesFileName is the takes journal in .voxform/: one line per output
// made or imported (see Take), local to this checkout.
const TakesFileName = "takes.jsonl"

// Bounds of the takes journal.
const (
	// MaxTakesBytes bounds the journal: once it is larger, the oldest
	// lines are dropped (the newest half is kept), and a reader reads
	// only its last MaxTakesBytes.
	MaxTakesBytes = 16 << 20
	// MaxTakeLine bounds one line; a longer one is skipped by a reader.
	MaxTakeLine = 16 << 10
	// MaxTakeOutputs bounds the outputs one take lists.
	MaxTakeOutputs = 64
)

// Take is one output voxform made (or imported) for an address: the
// fingerprint of the request it was made for, the digest of its output
// bytes (OutputsDigest), and each output's content, by which the output
// cache holds it.
type Take struct {
	Address     string       `json:"address"`
	Fingerprint string       `json:"fingerprint"`
	Digest      string       `json:"digest"`
	At          time.Time    `json:"at"`
	Origin      string       `json:"origin,omitempty"`
	Outputs     []TakeOutput `json:"outputs"`
}

// TakeOutput is one output of a take: its format (as Output.Format) and
// content.
type TakeOutput struct {
	Format string `json:"format,omitempty"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// TakeOf is the take of the outputs res records at addr, made at at.
// Delivered outputs are left out: they are made again from the others.
func TakeOf(addr string, res *Resource, at time.Time) Take {
	t := Take{Address: addr, Fingerprint: res.Fingerprint, Digest: OutputsDigest(res.Outputs), At: at.UTC(), Origin: res.Origin}
	if res.Origin == OriginTake {
		t.Fingerprint = res.Details().Take
	}
	for _, o := range res.Outputs {
		if o.Delivery == nil {
			t.Outputs = append(t.Outputs, TakeOutput{Format: o.Format, SHA256: o.SHA256, Size: o.Size})
		}
	}
	return t
}

// Same reports whether t and u are of the same bytes made for the same
// request.
func (t Take) Same(u Take) bool {
	if t.Fingerprint != u.Fingerprint || len(t.Outputs) != len(u.Outputs) {
		return false
	}
	for i := range t.Outputs {
		if t.Outputs[i] != u.Outputs[i] {
			return false
		}
	}
	return true
}

// check refuses a take no writer records.
func (t *Take) check() error {
	if err := CheckAddress(t.Address); err != nil {
		return fmt.Errorf("address: %w", err)
	}
	if !IsHexHash(t.Fingerprint) || !IsHexHash(t.Digest) {
		return errors.New("fingerprint and digest must be SHA-256s")
	}
	if t.Origin != "" && t.Origin != OriginImported && t.Origin != OriginTake && t.Origin != OriginRecorded {
		return fmt.Errorf("origin: %q is not one", t.Origin)
	}
	if len(t.Outputs) == 0 || len(t.Outputs) > MaxTakeOutputs {
		return fmt.Errorf("outputs: %d, want 1 to %d", len(t.Outputs), MaxTakeOutputs)
	}
	for i, o := range t.Outputs {
		if !IsHexHash(o.SHA256) || o.Size < 0 || CheckLabel("format", o.Format) != nil {
			return fmt.Errorf("outputs[%d]: not an output", i)
		}
	}
	return nil
}

// TakesJournal appends takes to the journal of a manifest directory. It
// is safe for concurrent use (apply's workers). The journal is opened at
// the first Append and kept open until Close, so that an apply of many
// outputs opens and checks it once.
type TakesJournal struct {
	mu  sync.Mutex
	dir string
	// d and f are .voxform/ and the journal in it, once opened.
	d, f *os.File
}

// NewTakesJournal returns the takes journal of the manifest directory
// dir. Nothing is opened until the first Append.
func NewTakesJournal(dir string) *TakesJournal { return &TakesJournal{dir: dir} }

// Append adds t as one line, in one write, to .voxform/takes.jsonl: a
// regular file in a real .voxform/ directory, never reached through a
// symbolic link (checked when it is opened, at the first Append). The
// line is not synced: the journal is an index of the output cache, and a
// reader skips a torn last line. Once the journal is larger than
// MaxTakesBytes, its oldest lines are dropped first.
func (j *TakesJournal) Append(t Take) error {
	if err := t.check(); err != nil {
		return fmt.Errorf("take of %s: %w", t.Address, err)
	}
	line, err := json.Marshal(t)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.open(); err != nil {
		return err
	}
	shown := filepath.Join(j.d.Name(), TakesFileName)
	st, err := j.f.Stat()
	if err == nil && st.Size()+int64(len(line)) > MaxTakesBytes {
		j.f.Close()
		j.f = nil
		if err := trimTakes(j.d, shown); err != nil {
			return err
		}
		if err := j.open(); err != nil {
			return err
		}
	}
	if _, err := j.f.Write(line); err != nil {
		return fmt.Errorf("takes journal: write %s: %w", shown, err)
	}
	return nil
}

// open opens .voxform/ (made if missing) and the journal in it, unless
// they are open.
func (j *TakesJournal) open() error {
	if j.d == nil {
		d, err := openCacheDir(j.dir, true)
		if err != nil {
			return fmt.Errorf("takes journal: %w", err)
		}
		j.d = d
	}
	if j.f == nil {
		f, err := openOwn(int(j.d.Fd()), TakesFileName, filepath.Join(j.d.Name(), TakesFileName), unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o644)
		if err != nil {
			return fmt.Errorf("takes journal: %w", err)
		}
		j.f = f
	}
	return nil
}

// Close closes the journal; a later Append opens it again.
func (j *TakesJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var err error
	if j.f != nil {
		err = j.f.Close()
	}
	if j.d != nil {
		j.d.Close()
	}
	j.d, j.f = nil, nil
	return err
}

// trimTakes rewrites the journal in the directory d with its newest
// lines only, at most half of MaxTakesBytes, atomically.
func trimTakes(d *os.File, shown string) error {
	f, err := openOwn(int(d.Fd()), TakesFileName, shown, unix.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("takes journal: %w", err)
	}
	tail, err := readTail(f, MaxTakesBytes/2)
	f.Close()
	if err != nil {
		return fmt.Errorf("takes journal: %w", err)
	}
	return owned.WriteFileAt(d, TakesFileName, 0o644, true, func(w io.Writer) error {
		_, err := w.Write(tail)
		return err
	})
}

// readTail reads the last n bytes of f at most, from the start of a line.
func readTail(f *os.File, n int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-n, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, err
	}
	if off > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, nil
		}
		b = b[i+1:]
	}
	return b, nil
}

// ReadTakes returns the takes the journal of the manifest directory dir
// records for addr ("": every address), oldest first, and how many lines
// were skipped (torn, longer than MaxTakeLine, or not a take). A missing
// journal has none.
func ReadTakes(dir, addr string) ([]Take, int, error) {
	d, err := openCacheDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("takes journal: %w", err)
	}
	defer d.Close()
	f, err := openOwn(int(d.Fd()), TakesFileName, filepath.Join(d.Name(), TakesFileName), unix.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("takes journal: %w", err)
	}
	defer f.Close()
	b, err := readTail(f, MaxTakesBytes)
	if err != nil {
		return nil, 0, fmt.Errorf("takes journal: %w", err)
	}
	return parseTakes(b, addr)
}

// parseTakes reads the lines of b (see ReadTakes).
func parseTakes(b []byte, addr string) ([]Take, int, error) {
	var takes []Take
	skipped := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), len(b)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var t Take
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if len(line) > MaxTakeLine || dec.Decode(&t) != nil || t.check() != nil {
			skipped++
			continue
		}
		if addr == "" || t.Address == addr {
			takes = append(takes, t)
		}
	}
	return takes, skipped, sc.Err()
}
