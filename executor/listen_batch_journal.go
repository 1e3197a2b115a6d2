package executor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/owned"
)

// The batch jobs of listening checks are recorded, before they start, in
// a journal of the manifest directory's .voxform/ (checkJobsFile): which
// check fingerprints each job holds, under which file names. An apply
// killed while a job runs leaves it there; the next apply that needs one
// of those checks follows that job (no create, no start) and collects it.
// The journal is local, as the takes the checks hear are: a check's
// fingerprint holds its audio's hash, and a take no apply recorded lives
// only in this directory's stores.
const (
	// checkJobsFile is the journal's name in .voxform/.
	checkJobsFile = "listen-jobs.json"
	// maxCheckJournal bounds the journal read: in-flight jobs of 100 files
	// hold about 20 kB each.
	maxCheckJournal = 16 << 20
)

// journalJob is one recorded check job.
type journalJob struct {
	JobID        string        `json:"job_id"`
	API          string        `json:"api"`
	Service      string        `json:"service"`
	Created      time.Time     `json:"created"`
	LanguageCode string        `json:"language_code"`
	Model        string        `json:"model"`
	Files        []journalFile `json:"files"`
}

// journalFile is a check a recorded job holds, not collected yet.
type journalFile struct {
	Fingerprint string `json:"fingerprint"`
	Name        string `json:"name"`
}

// checkJournal is the journal of one apply, kept in memory and written
// whole, atomically and durably, on every change.
type checkJournal struct {
	dir string // the manifest directory
	mu  sync.Mutex
	// jobs are the recorded jobs; err is why the journal could not be
	// read (then no batch check is made: one recorded would be paid again).
	jobs []journalJob
	err  error
}

// loadCheckJournal reads the journal of the manifest directory dir,
// leaving out jobs older than intentHorizon and jobs of an emulator other
// than service (gone with the process that ran it).
func loadCheckJournal(dir, service string, now time.Time) *checkJournal {
	j := &checkJournal{dir: dir}
	b, err := readCheckJournal(dir)
	if err != nil {
		j.err = err
		return j
	}
	if b == nil {
		return j
	}
	var doc struct {
		Jobs []journalJob `json:"jobs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		j.err = fmt.Errorf("read %s: %w", j.path(), err)
		return j
	}
	for _, job := range doc.Jobs {
		if err := job.check(); err != nil {
			j.err = fmt.Errorf("read %s: %w", j.path(), err)
			return j
		}
		stale := now.Sub(job.Created) > intentHorizon || job.Service != service && contract.IsLoopbackURL(job.Service)
		if !stale {
			j.jobs = append(j.jobs, job)
		}
	}
	return j
}

// check refuses a recorded job voxform did not write.
func (job journalJob) check() error {
	if job.JobID == "" || job.API == "" || len(job.Files) == 0 || len(job.Files) > contract.MaxJobFiles {
		return fmt.Errorf("job %q: not a recorded check job (an id, an api and 1 to %d files)", job.JobID, contract.MaxJobFiles)
	}
	for _, f := range job.Files {
		if !isFingerprint(f.Fingerprint) || f.Name != checkUploadName(f.Fingerprint) {
			return fmt.Errorf("job %q: file %q is not a check's", job.JobID, f.Name)
		}
	}
	return nil
}

func (j *checkJournal) path() string { return filepath.Join(j.dir, owned.CacheDir, checkJobsFile) }

// readCheckJournal reads the journal file: nil when there is none. Like
// every file of .voxform/, it is read only from a real directory there,
// never through a symbolic link.
func readCheckJournal(dir string) ([]byte, error) {
	p := filepath.Join(dir, owned.CacheDir, checkJobsFile)
	d, err := openCacheDirectory(dir, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer d.Close()
	fd, err := unix.Openat(int(d.Fd()), checkJobsFile, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCheckJournal+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(b) > maxCheckJournal {
		return nil, fmt.Errorf("read %s: larger than %d MiB, the bound of this journal", p, maxCheckJournal>>20)
	}
	return b, nil
}

// openCacheDirectory opens .voxform/ in dir, a real directory (not a
// symbolic link); with create, a missing one is made.
func openCacheDirectory(dir string, create bool) (*os.File, error) {
	p := filepath.Join(dir, owned.CacheDir)
	if create {
		if err := unix.Mkdir(p, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, &os.PathError{Op: "mkdir", Path: p, Err: err}
		}
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

// holder is the recorded job of service holding the check fp, if any.
func (j *checkJournal) holder(fp, service string) (journalJob, journalFile, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range j.jobs {
		if job.Service != service {
			continue
		}
		for _, f := range job.Files {
			if f.Fingerprint == fp {
				return job, f, true
			}
		}
	}
	return journalJob{}, journalFile{}, false
}

// ids are the recorded jobs' ids.
func (j *checkJournal) ids() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, job := range j.jobs {
		out = append(out, job.JobID)
	}
	return out
}

// add records job durably: it returns once the record would survive a
// kill.
func (j *checkJournal) add(job journalJob) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	jobs := append(slices.Clip(j.jobs), job)
	if err := j.write(jobs); err != nil {
		return err
	}
	j.jobs = jobs
	return nil
}

// forget removes the checks fps from the record of the job id (their
// outcome is final), and the job once it holds none; with all, the job
// whatever it holds (it no longer exists, or failed as a whole).
func (j *checkJournal) forget(id string, fps []string, all bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	jobs := make([]journalJob, 0, len(j.jobs))
	for _, job := range j.jobs {
		if job.JobID == id {
			job.Files = slices.DeleteFunc(slices.Clone(job.Files), func(f journalFile) bool { return slices.Contains(fps, f.Fingerprint) })
			if all || len(job.Files) == 0 {
				continue
			}
		}
		jobs = append(jobs, job)
	}
	if err := j.write(jobs); err != nil {
		return err
	}
	j.jobs = jobs
	return nil
}

// write replaces the journal file with jobs (removes it when there are
// none), atomically and durably.
func (j *checkJournal) write(jobs []journalJob) error {
	d, err := openCacheDirectory(j.dir, len(jobs) > 0)
	if errors.Is(err, os.ErrNotExist) && len(jobs) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", j.path(), err)
	}
	defer d.Close()
	if len(jobs) == 0 {
		if err := unix.Unlinkat(int(d.Fd()), checkJobsFile, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("remove %s: %w", j.path(), err)
		}
		return d.Sync()
	}
	b, err := json.MarshalIndent(struct {
		Jobs []journalJob `json:"jobs"`
	}{jobs}, "", "  ")
	if err != nil {
		return err
	}
	return owned.WriteFileAt(d, checkJobsFile, 0o644, true, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
