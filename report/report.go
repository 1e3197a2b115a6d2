package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Input is what a report is made of.
type Input struct {
	// Dir is the manifest directory: every recorded path is relative to it.
	Dir string
	// Out is the directory the page is written to (created if needed).
	Out string
	// State is the state as it is now. Required.
	State *state.File
	// Previous, when set, is the state before the last apply: the page
	// then shows what that apply created, replaced and deleted, with the
	// previous texts and audio.
	Previous *state.File
	// Plan, when set, makes the page show this saved plan (against State)
	// instead of the last apply.
	Plan *planner.SavedPlan
	// Cache, when set, is the local output cache outputs no longer on disk
	// (previous audio, restores) are copied from.
	Cache *cache.Local
	// Loudness measures the integrated loudness and true peak of every
	// audio file shown; without it, the page shows the figures the state
	// recorded as apply wrote each output.
	Loudness bool
	// Manifest, when set, is the manifest the state was applied from (or
	// the saved plan planned): each recorded listening check is judged
	// again at its listen: limits (planner.Judge, free: the transcript is
	// recorded), and its max_text_chars splits a recorded text into the
	// texts of its recorded chunks. Without it the page shows the
	// verdicts as recorded.
	Manifest *manifest.Manifest
	// Title heads the page (the manifest directory's name when empty).
	Title string
	// Now is the time the page says it was made (time.Now when zero).
	Now time.Time
}

// Limits of a report: a state or plan over them is refused or cut, with
// the page saying what was left out.
const (
	// MaxResources is the most resources one page lists.
	MaxResources = 200_000
	// MaxTextRunes is the most characters of one text shown (the rest is
	// cut with a mark).
	MaxTextRunes = 20_000
	// MaxTranscriptBytes is the largest transcript JSON read.
	MaxTranscriptBytes = 64 << 20
	// MaxSegments is the most transcript segments shown per transcript.
	MaxSegments = 5_000
	// PageSize is how many rows the page renders at a time.
	PageSize = 100
)

// Build writes the report of in to in.Out: index.html, audio/ and wave/.
func Build(ctx context.Context, in Input) error {
	if in.State == nil {
		return errors.New("report: no state")
	}
	dir, err := filepath.Abs(in.Dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	in.Dir = dir
	if in.Out, err = filepath.Abs(in.Out); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := CheckOut(in.Dir, in.Out, outputPaths(in)); err != nil {
		return err
	}
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	if in.Title == "" {
		in.Title = filepath.Base(in.Dir)
	}
	p, err := rows(in)
	if err != nil {
		return err
	}
	for _, sub := range []string{"", audioDir, waveDir} {
		if err := os.MkdirAll(filepath.Join(in.Out, sub), 0o755); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	m, err := newMedia(in)
	if err != nil {
		return err
	}
	defer m.close()
	if err := fill(ctx, m, p); err != nil {
		return err
	}
	return writePage(in, p)
}

// fill places the audio and reads the transcripts of every row, on every
// CPU: each row's media are its own.
func fill(ctx context.Context, m *media, p *page) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range p.Items {
		it := &p.Items[i]
		g.Go(func() error {
			if err := m.fillItem(ctx, it); err != nil {
				return err
			}
			p.listening.fillListen(it)
			return nil
		})
	}
	return g.Wait()
}

// outputPaths lists every output path the state and the plan name.
func outputPaths(in Input) []string {
	var out []string
	for _, st := range []*state.File{in.State, in.Previous} {
		if st == nil {
			continue
		}
		for _, r := range st.Resources {
			for _, o := range r.Outputs {
				out = append(out, o.Path)
			}
		}
	}
	if in.Plan != nil && in.Plan.Plan != nil {
		for _, a := range in.Plan.Plan.Actions {
			if a.Desired != nil {
				for _, o := range a.Desired.Outputs {
					out = append(out, o.Path)
				}
			}
		}
	}
	return out
}

// CheckOut refuses an output directory out (absolute) for the manifest
// directory dir (absolute) that voxform may not write: the manifest
// directory itself, .voxform/, version control, a state file, or a
// directory that holds or lies below one of the outputs (relative paths).
// A directory outside the manifest directory is the user's to name, by
// its path: one named inside it that a symbolic link leads out of (a link
// a contributor committed) is refused, as an input reached so would be.
func CheckOut(dir, out string, outputs []string) error {
	dir, out = filepath.Clean(dir), filepath.Clean(out)
	given, spelledInside := out, owned.Within(out, dir)
	out = resolveExisting(out)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if out == dir {
		return fmt.Errorf("report -out %s: is the manifest directory itself; name a directory of its own, for example report", out)
	}
	rel, err := filepath.Rel(dir, out)
	if err != nil {
		return fmt.Errorf("report -out %s: %w", out, err)
	}
	rel = filepath.ToSlash(rel)
	inside := rel != ".." && !strings.HasPrefix(rel, "../")
	if spelledInside && !inside {
		return fmt.Errorf("report -out %s: leads outside the manifest directory through a symbolic link; name the outside directory by its own path", given)
	}
	if inside {
		if err := owned.CheckRel(rel); err != nil {
			return fmt.Errorf("report -out: %w", err)
		}
	}
	for _, o := range outputs {
		abs := filepath.Join(dir, filepath.FromSlash(o))
		switch {
		case abs == out:
			return fmt.Errorf("report -out %s: is an output of the project", out)
		case strings.HasPrefix(abs, out+string(filepath.Separator)):
			return fmt.Errorf("report -out %s: holds the output %s; name a directory of its own", out, o)
		case strings.HasPrefix(out, abs+string(filepath.Separator)):
			return fmt.Errorf("report -out %s: is below the output %s", out, o)
		}
	}
	return nil
}

// resolveExisting is path with the symbolic links of its longest existing
// part resolved (a directory -out makes may not exist yet, but the link
// above it does).
func resolveExisting(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
