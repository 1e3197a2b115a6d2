package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// Journal record operations.
const (
	opBegin  = "begin"
	opPut    = "put"
	opRemove = "remove"
)

// record is one line of the journal.
type record struct {
	Op string `json:"op"`
	// Lineage and BaseSerial (begin only) name the state the journal
	// applies to.
	Lineage    string `json:"lineage,omitempty"`
	BaseSerial int64  `json:"base_serial,omitempty"`
	// Resources are set (put): one for a completed resource, several for the
	// files of a batch job recorded together.
	Resources map[string]*Resource `json:"resources,omitempty"`
	// Remove lists addresses removed from the state.
	Remove []string `json:"remove,omitempty"`
	// Intent is a batch job create about to be made (intent).
	Intent *JobIntent `json:"intent,omitempty"`
	// ClearIntents lists the ids of intents swept (intent_clear).
	ClearIntents []string `json:"clear_intents,omitempty"`
	// Written lists outputs about to be renamed into place (written).
	Written []Written `json:"written,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaxJournalLine bounds one line of the journal, newline included. The
// largest record holds the resources of one batch job (at most 100, each
// with a request whose texts take a few KiB), far below it. A record over
// it is refused when written, so a longer line read back is not one
// voxform wrote: replay stops with an error naming the limit instead of
// reading on (a journal line of 600 MB once took 1.19 GB of memory).
const MaxJournalLine = 64 << 20

// encodeRecord returns the journal line of rec: checksum, space, JSON, newline.
func encodeRecord(rec *record) ([]byte, error) {
	body, err := marshalNoEscape(rec)
	if err != nil {
		return nil, fmt.Errorf("encode journal record: %w", err)
	}
	if len(body)+10 > MaxJournalLine {
		return nil, fmt.Errorf("encode journal record: %d bytes, more than %s, the limit of a journal line", len(body)+10, sizeString(MaxJournalLine))
	}
	line := make([]byte, 0, len(body)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(body, castagnoli))
	line = append(line, body...)
	return append(line, '\n'), nil
}

// decodeRecord parses one journal line (newline included). ok is false for a
// torn or corrupt line.
func decodeRecord(line []byte) (*record, bool) {
	if len(line) < 10 || line[len(line)-1] != '\n' || line[8] != ' ' {
		return nil, false
	}
	sum, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return nil, false
	}
	body := line[9 : len(line)-1]
	if crc32.Checksum(body, castagnoli) != uint32(sum) {
		return nil, false
	}
	var rec record
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, false
	}
	return &rec, true
}

// apply applies a put, remove or written record to f. An address put or
// removed is no longer only Written.
func (rec *record) apply(f *File) {
	for a, r := range rec.Resources {
		f.Resources[a] = r
		f.forgetWritten([]string{a})
	}
	for _, a := range rec.Remove {
		delete(f.Resources, a)
	}
	f.forgetWritten(rec.Remove)
	f.addWritten(rec.Written)
}

// checkEntries refuses a record naming an address that is not one or a
// path voxform could not own (see File.checkEntries).
func (rec *record) checkEntries() error {
	for i, a := range rec.Remove {
		if err := CheckAddress(a); err != nil {
			return fmt.Errorf("remove[%d] %q: %w", i, a, err)
		}
	}
	tmp := File{Resources: rec.Resources, Written: rec.Written}
	return tmp.checkEntries()
}

// journalReplay is the outcome of reading a journal.
type journalReplay struct {
	exists  bool // a journal file was found
	stale   bool // it was already folded into the state file
	records int  // put, remove and intent records applied
	torn    bool // replay stopped at a torn or corrupt line
}

// replayJournal applies the journal at path to f (in memory). A missing
// journal is not an error. The journal must be a regular file, not a
// symbolic link, and each of its lines at most MaxJournalLine long.
func replayJournal(path string, f *File, stateExists bool) (journalReplay, error) {
	var out journalReplay
	fh, err := openOwn(unix.AT_FDCWD, path, path, unix.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("read journal: %w", err)
	}
	defer fh.Close()
	out.exists = true
	br := bufio.NewReaderSize(fh, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, err := readLine(br, buf[:0], MaxJournalLine)
		if errors.Is(err, errLineTooLong) {
			return out, fmt.Errorf("read journal %s: line %d is longer than %s, the limit of a journal line: voxform did not write it", path, n, sizeString(MaxJournalLine))
		}
		buf = line
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return out, fmt.Errorf("read journal: %w", err)
		}
		rec, ok := decodeRecord(line)
		if !ok {
			out.torn = true
			return out, nil
		}
		if n == 1 {
			stale, err := checkBegin(path, rec, f, stateExists)
			if err != nil || stale {
				out.stale = stale
				return out, err
			}
			continue
		}
		switch rec.Op {
		case opPut, opRemove, opWritten:
			if err := rec.checkEntries(); err != nil {
				return out, fmt.Errorf("read journal %s: %w", path, err)
			}
			rec.apply(f)
		case opIntent, opIntentClear:
			if err := checkIntentRecord(rec); err != nil {
				return out, fmt.Errorf("read journal %s: %w", path, err)
			}
			rec.applyIntents(f)
		default:
			return out, fmt.Errorf("read journal %s: unknown record %q", path, rec.Op)
		}
		out.records++
	}
}

var errLineTooLong = errors.New("line too long")

// readLine appends to buf the next line of br, newline included (none at
// the end of the file), and fails with errLineTooLong once it passes limit
// bytes, having held no more than limit of them. At the end of the file the
// error is io.EOF. The buffer doubles as it grows, so that a long line
// costs about twice its length in allocations.
func readLine(br *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(buf) + len(chunk)
		if n > limit {
			return buf, errLineTooLong
		}
		if n > cap(buf) {
			grown := make([]byte, len(buf), min(max(2*cap(buf), n), limit))
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// checkBegin validates the begin record against the state. A journal based on
// an older serial was already folded (the process died between writing the
// state and removing the journal): it is stale.
func checkBegin(path string, rec *record, f *File, stateExists bool) (stale bool, err error) {
	if rec.Op != opBegin {
		return false, fmt.Errorf("read journal %s: first record is %q, not begin", path, rec.Op)
	}
	if !stateExists && f.Serial == 0 {
		f.Lineage = rec.Lineage
	}
	if rec.Lineage != f.Lineage {
		return false, fmt.Errorf("read journal %s: lineage %s does not match the state's %s", path, rec.Lineage, f.Lineage)
	}
	switch {
	case rec.BaseSerial < f.Serial:
		return true, nil
	case rec.BaseSerial > f.Serial:
		return false, fmt.Errorf("read journal %s: it continues state serial %d but the state file has serial %d (was the state file replaced by an older copy?)", path, rec.BaseSerial, f.Serial)
	}
	return false, nil
}

// journalGather is the SyncGroup.Gather of the journal's fsyncs: while
// the workers of an apply record results a little apart, each fsync
// covers those recorded within this time, not only those that queued
// behind the last fsync.
const journalGather = 3 * time.Millisecond

// journalWriter appends records durably. Appends from many goroutines are
// written in order and share fsyncs (group commit): a caller returns only
// once a sync that covers its own line has completed.
type journalWriter struct {
	path string

	mu  sync.Mutex // guards f writes and err
	f   *os.File
	err error
	// syncs shares one fsync among the lines written before it (group
	// commit): each result is durable before its wait returns.
	syncs owned.SyncGroup
}

// createJournal creates the journal with its begin record, durably.
func createJournal(path, lineage string, baseSerial int64) (*journalWriter, error) {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	line, err := encodeRecord(&record{Op: opBegin, Lineage: lineage, BaseSerial: baseSerial})
	if err == nil {
		_, err = fh.Write(line)
	}
	if err == nil {
		err = fh.Sync()
	}
	if err == nil {
		err = owned.SyncDir(filepath.Dir(path))
	}
	if err != nil {
		fh.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create journal: %w", err)
	}
	j := &journalWriter{path: path, f: fh}
	j.syncs.Gather = journalGather
	return j, nil
}

// write appends line and applies fn under the write lock, so that the
// in-memory order equals the journal order. It returns the line's sequence
// number for wait.
func (j *journalWriter) write(line []byte, fn func()) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return 0, j.err
	}
	if _, err := j.f.Write(line); err != nil {
		// A partial line may be on disk: nothing may follow it.
		j.err = fmt.Errorf("append journal: %w", err)
		return 0, j.err
	}
	fn()
	return j.syncs.Made(), nil
}

// wait returns once the line with sequence seq is synced, by an fsync of
// its own or one that began after it was written. A failed fsync stops
// every later write too.
func (j *journalWriter) wait(seq uint64) error {
	return j.syncs.Wait(seq, func() error {
		if err := j.f.Sync(); err != nil {
			err = fmt.Errorf("sync journal: %w", err)
			j.mu.Lock()
			j.err = err
			j.mu.Unlock()
			return err
		}
		return nil
	})
}

func (j *journalWriter) close() error { return j.f.Close() }
