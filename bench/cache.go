package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/miniotest"
	"github.com/voxform/voxform/internal/numfmt"
)

// The output cache's targets (issue 14), measured against a real MinIO
// server on a loopback port, configured as a team configures it: the
// manifest's cache block names the remote and its endpoint, the
// credentials are the standard AWS variables.
const (
	// remotePrefix is the key prefix of the team's cache in the bucket.
	remotePrefix = "team/speech"
	// lookupOverhead is C3's target: a plan with nothing to restore takes
	// at most this much longer with the cache than without.
	lookupOverhead = 0.10
	// pullTarget is C2's target.
	pullTarget = 20 * time.Second
)

// cacheBlock is the manifest's cache block for remote (s3://bucket/prefix)
// on the S3 endpoint (http://127.0.0.1:PORT).
const cacheBlock = `
cache:
  remote: %s
  endpoint: %s
`

// outputCache measures C1, C2 and C3. A first project of h.sz.syntheses
// syntheses is applied with the cache on, which keeps and pushes every
// output as it is made: the team's remote is then warm. A fresh clone of
// it (manifest and state, no outputs, an empty local cache) is planned
// (C1: every resource restorable) and pulled (C2). A project of as many
// other requests, none of them in the remote, is planned with the cache
// and without it (C3).
func (h *harness) outputCache(ctx context.Context) error {
	n := h.sz.syntheses
	srv, stop, err := miniotest.Run(filepath.Join(h.work, "minio"))
	if err != nil {
		return err
	}
	defer stop()
	bucket, err := srv.NewBucket(ctx)
	if err != nil {
		return err
	}
	remote := srv.URL(bucket, remotePrefix)
	endpoint := "http://" + srv.Endpoint
	e, err := startEmulator(emulator.Options{})
	if err != nil {
		return err
	}
	defer e.stop()
	defer func() { h.r.env = nil }()

	origin := filepath.Join(h.work, "cache-origin")
	if err := writeCached(origin, 0, n, remote, endpoint); err != nil {
		return err
	}
	h.r.env = cacheEnv(srv, origin+".local")
	warm, err := h.warmRemote(ctx, e, srv, bucket, origin, n)
	if err != nil {
		return err
	}
	clone := filepath.Join(h.work, "cache-clone")
	if err := cloneState(origin, clone); err != nil {
		return err
	}
	h.r.env = cacheEnv(srv, clone+".local")
	if err := h.planRestorable(ctx, origin, clone, n, warm); err != nil {
		return err
	}
	if err := h.pull(ctx, e, origin, clone, n); err != nil {
		return err
	}
	fresh := filepath.Join(h.work, "cache-new")
	if err := writeCached(fresh, n, n, remote, endpoint); err != nil {
		return err
	}
	h.r.env = cacheEnv(srv, fresh+".local")
	return h.lookupOverhead(ctx, fresh, n)
}

// cacheEnv is the environment of a run with the output cache on: the
// local cache in dir, the server's credentials in the standard AWS
// variables. The remote and endpoint are the manifest's: the variables
// that would override them are emptied (an empty one is ignored), as is
// any session token of the harness's own environment.
func cacheEnv(srv *miniotest.Server, dir string) []string {
	return []string{"VOXFORM_CACHE=on", "VOXFORM_CACHE_DIR=" + dir,
		"VOXFORM_CACHE_REMOTE=", "VOXFORM_CACHE_ENDPOINT=", "VOXFORM_CACHE_REGION=",
		"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey,
		"AWS_SESSION_TOKEN=", "AWS_REGION=us-east-1"}
}

// writeCached writes the syntheses of prompts first to first+n-1 with the
// cache block of remote on endpoint.
func writeCached(dir string, first, n int, remote, endpoint string) error {
	if err := writeSynthesesFrom(dir, first, n, 4); err != nil {
		return fmt.Errorf("generate %d syntheses: %w", n, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "main.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, cacheBlock, remote, endpoint); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// warmRemote applies origin with the cache on, which pushes each output as
// it is made, and checks that the remote then holds an entry for each of
// the n syntheses. It returns a line describing that apply.
func (h *harness) warmRemote(ctx context.Context, e *emu, srv *miniotest.Server, bucket, origin string, n int) (string, error) {
	_, line, err := h.applyAll(ctx, e, origin, n, "-parallelism=16")
	if err != nil {
		return "", err
	}
	entries, err := countObjects(ctx, srv, bucket, remotePrefix+"/v1/entries/")
	if err != nil {
		return "", err
	}
	blobs, err := countObjects(ctx, srv, bucket, remotePrefix+"/v1/blobs/")
	if err != nil {
		return "", err
	}
	if entries != n {
		return "", fmt.Errorf("after the apply of %d syntheses with the cache on, the remote holds %d entries", n, entries)
	}
	return fmt.Sprintf("the remote was filled by the apply of the first repository with the cache on (it keeps and pushes each output as it is made): %s; "+
		"the remote then held %s entries and %s blobs", line, numfmt.Thousands(entries), numfmt.Thousands(blobs)), nil
}

// countObjects counts the objects below prefix in bucket, listed with the
// server's root credentials.
func countObjects(ctx context.Context, srv *miniotest.Server, bucket, prefix string) (int, error) {
	n := 0
	for obj := range srv.Client().ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return 0, fmt.Errorf("list %s: %w", prefix, obj.Err)
		}
		n++
	}
	return n, nil
}

// cloneState makes clone a fresh clone of origin as git checks out a team's
// project: the manifest, its CSV and the state, no outputs (ignored), no
// .voxform (per machine).
func cloneState(origin, clone string) error {
	if err := os.MkdirAll(clone, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"main.yaml", "prompts.csv", "voxform.state.json"} {
		if err := copyFile(filepath.Join(origin, name), filepath.Join(clone, name)); err != nil {
			return err
		}
	}
	return nil
}

// freshClone takes clone back to a fresh clone of origin: no outputs, no
// .voxform, the committed state, an empty local cache. What an earlier
// run made is moved aside, not deleted: ext4 without a journal (as on
// the machines this was measured on) looks over every inode freed in the
// last minute for each file it creates, and the next run's 30,000 file
// creations right after the removal of as many files paid for that scan
// in kernel time, a cost of the harness's cleanup, not of voxform (see
// the order of steps in main.go). The work directory goes at the end.
func freshClone(origin, clone string) error {
	aside, err := os.MkdirTemp(filepath.Dir(clone), "aside-")
	if err != nil {
		return err
	}
	for i, p := range []string{filepath.Join(clone, "build"), filepath.Join(clone, ".voxform"), clone + ".local"} {
		err := os.Rename(p, filepath.Join(aside, strconv.Itoa(i)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return copyFile(filepath.Join(origin, "voxform.state.json"), filepath.Join(clone, "voxform.state.json"))
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// planSummary matches the plan's summary line.
var planSummary = regexp.MustCompile(`(?m)^Plan: (\d+) to add, (\d+) to replace, (\d+) to repair, (?:(\d+) to restore \(free\), )?`)

// planCounts reads the adds, replaces, repairs and restores of the plan a
// log holds.
func planCounts(log string) (add, replace, repair, restore int, err error) {
	b, err := os.ReadFile(log)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	sm := planSummary.FindSubmatch(b)
	if sm == nil {
		return 0, 0, 0, 0, fmt.Errorf("no plan summary in %s", log)
	}
	num := func(s []byte) int { v, _ := strconv.Atoi(string(s)); return v }
	return num(sm[1]), num(sm[2]), num(sm[3]), num(sm[4]), nil
}

// planRestorable is C1: a plan of the fresh clone, whose every resource
// the remote holds.
func (h *harness) planRestorable(ctx context.Context, origin, clone string, n int, warm string) error {
	m, walls, err := h.timed(ctx, 2, clone, func() error { return freshClone(origin, clone) }, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	add, replace, repair, restore, err := planCounts(m.LogPath)
	if err != nil {
		return err
	}
	if add+replace+repair != 0 || restore != n {
		return fmt.Errorf("plan of the fresh clone: %d to add, %d to replace, %d to repair, %d to restore, want %d restores only: see %s",
			add, replace, repair, restore, n, m.LogPath)
	}
	h.add(result{ID: "C1", What: fmt.Sprintf("plan, %s syntheses, fresh clone, every one restorable from the remote (MinIO on loopback)", numfmt.Thousands(n)),
		Target: "none (reported)", Figure: fmt.Sprintf("%s s", secs(m.Wall)), Verdict: "n/a (no target)",
		Details: []string{
			fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 2: %s restores, nothing billed) in a fresh clone (manifest, CSV and state; no outputs, no .voxform, an empty local cache), "+
				"median of %s; %s; peak RSS %s; the remote is looked up by listing the shards of its entries (v1/entries/ab/, 32 at once); MinIO's own CPU time is not in these figures",
				numfmt.Thousands(restore), runsOf(walls), cpuOf(m), mib(m.MaxRSS)),
			warm,
		},
	})
	return nil
}

// restored matches pull's report.
var restored = regexp.MustCompile(`Restored (\d+) resource\(s\) from the output cache`)

// pull is C2: voxform pull in the fresh clone, then a check that every
// output is back as recorded (a plan without the cache has nothing to do)
// and that the service was not called.
func (h *harness) pull(ctx context.Context, e *emu, origin, clone string, n int) error {
	var m measured
	var walls []time.Duration
	st, err := e.during(ctx, func() (err error) {
		m, walls, err = h.timedAt(ctx, 0, clone, e.URL(), func() error { return freshClone(origin, clone) }, "pull")
		return err
	})
	if err != nil {
		return err
	}
	log, err := os.ReadFile(m.LogPath)
	if err != nil {
		return err
	}
	sm := restored.FindSubmatch(log)
	if sm == nil || string(sm[1]) != strconv.Itoa(n) {
		return fmt.Errorf("pull did not restore %d resources: see %s\n%s", n, m.LogPath, tail(m.LogPath, 12))
	}
	if st.total() != 0 {
		return fmt.Errorf("pull called the service: %s", st.describe())
	}
	files, bytes, err := countFiles(filepath.Join(clone, "build"))
	if err != nil {
		return err
	}
	_, originBytes, err := countFiles(filepath.Join(origin, "build"))
	if err != nil {
		return err
	}
	if files != n || bytes != originBytes {
		return fmt.Errorf("pull wrote %d files of %d bytes, want %d of %d", files, bytes, n, originBytes)
	}
	if _, err := h.r.mustExit(ctx, 0, clone, "", "plan", "-detailed-exitcode", "-cache=off"); err != nil {
		return fmt.Errorf("outputs pulled are not those recorded: %w", err)
	}
	h.add(result{ID: "C2", What: fmt.Sprintf("`voxform pull` of %s outputs of ~%s from MinIO on loopback into a fresh clone", numfmt.Thousands(files), kb(bytes/int64(max(files, 1)))),
		Target: fmt.Sprintf("< %g s", pullTarget.Seconds()), Figure: fmt.Sprintf("%s s", secs(m.Wall)),
		Verdict: h.verdict(m.Wall < pullTarget, true),
		Details: []string{fmt.Sprintf("`voxform pull` in the fresh clone of C1, whole process (plan with its lookups, download of each entry and blob into the local cache, "+
			"a verified copy of each into place, the state recorded), median of %s; %s; peak RSS %s; %s in all; API requests: none; "+
			"then `voxform plan -detailed-exitcode -cache=off` exits 0 (every output matches its recorded SHA-256)",
			runsOf(walls), cpuOf(m), mib(m.MaxRSS), mib(bytes))},
	})
	return nil
}

// lookupOverhead is C3: a plan of n new syntheses, none in the remote,
// with the cache on (local and remote looked up) and with -cache=off, the
// runs alternating so that a change in the machine's load falls on both.
func (h *harness) lookupOverhead(ctx context.Context, dir string, n int) error {
	var on, off []measured
	var onWalls, offWalls []time.Duration
	for range h.sz.runs {
		m, err := h.r.mustExit(ctx, 2, dir, "", "plan", "-detailed-exitcode", "-cache=off")
		if err != nil {
			return err
		}
		off, offWalls = append(off, m), append(offWalls, m.Wall)
		m, err = h.r.mustExit(ctx, 2, dir, "", "plan", "-detailed-exitcode")
		if err != nil {
			return err
		}
		on, onWalls = append(on, m), append(onWalls, m.Wall)
		add, _, _, restore, err := planCounts(m.LogPath)
		if err != nil {
			return err
		}
		if add != n || restore != 0 {
			return fmt.Errorf("plan of %d new syntheses with the cache: %d to add, %d to restore: see %s", n, add, restore, m.LogPath)
		}
	}
	a, b := median(on), median(off)
	ratio := float64(a.Wall)/float64(b.Wall) - 1
	h.add(result{ID: "C3", What: fmt.Sprintf("cache lookup overhead, plan of %s new syntheses (nothing to restore), remote on MinIO on loopback", numfmt.Thousands(n)),
		Target:  fmt.Sprintf("< %.0f%% over -cache=off", lookupOverhead*100),
		Figure:  fmt.Sprintf("%+.0f%% (%s s vs %s s)", ratio*100, secs(a.Wall), secs(b.Wall)),
		Verdict: h.verdict(ratio < lookupOverhead, true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 2: %s to add) with the cache on, median of %s; %s; peak RSS %s; "+
			"against `voxform plan -detailed-exitcode -cache=off`, median of %s; %s; peak RSS %s; runs alternating; "+
			"the local cache is empty and the remote holds the %s entries of C1, none of these",
			numfmt.Thousands(n), runsOf(onWalls), cpuOf(a), mib(a.MaxRSS), runsOf(offWalls), cpuOf(b), mib(b.MaxRSS), numfmt.Thousands(n))},
	})
	return nil
}
