package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "verify", synopsis: "re-hash every recorded output against the state (an audit)", run: runVerify})
}

const verifyUsage = `
Usage: voxform verify [flags]

Re-hashes every output recorded in voxform.state.json, and every local
transcription source, and reports each that is missing or differs from what
was recorded. Nothing is trusted from the hash cache and nothing is
changed. Exit status 1 when any output drifted.

With -loudness, also compares the integrated loudness of every synthesis
output with the median of them all, and its true peak with a limit, and
reports each beyond them (exit status 1 too). The figures recorded in the
state are used; an output without them, or whose file changed, is
measured now. The limits come from the flags, else the manifest's
loudness: block, else 3 LU and -1 dBTP.

With -listen, also judges again every listening check recorded for the
syntheses that declare listen:, at the manifest's current limits (free:
the recorded transcripts are compared with the text sent, no service is
called), and the loudness step and silence gap at every chunk boundary of
their joined outputs, and reports each that fails (exit status 1 too). A
declared check not recorded for the output's current audio fails as not
checked. -make makes those checks first: it plans, takes the checks the
plan would make and nothing else (no synthesis, no regeneration), makes
those the output cache holds, and those that bill only with -auto-approve
or a 'yes' on a terminal, within the manifest's budget.

With -deliver, also measures every delivered output (deliver:) and
judges it by every rule of its profile as the manifest declares it now:
format, loudness, peak, noise floor, head and tail, duration and size,
each printed measured against target (exit status 1 when any fails, or
a declared delivery is not made).

With -require-approved, also checks that every declared resource that
writes outputs is approved ('voxform approve') and that its approval
holds (its outputs are still the bytes approved), and lists each that is
not (exit status 1 too): a merge gate for CI. A resource pinned by
lifecycle keep_approved is approved.

With -junit FILE, also writes every check as a JUnit XML test case (one
per recorded file and check, a failure naming the measured and the
recorded or target values) for a CI system to show. When
GITHUB_STEP_SUMMARY names a file, a Markdown summary is appended to it.

Flags:
`

// verifyOptions are the flags of verify.
type verifyOptions struct {
	json     bool
	loudness bool
	// junit is -junit: the file the JUnit XML report goes to.
	junit string
	// listen is -listen; make (-make) makes the missing checks first,
	// with apply's flags for it.
	listen bool
	make   bool
	// deliver is -deliver.
	deliver bool
	// requireApproved is -require-approved.
	requireApproved bool
	apply           applyFlags
	// limits are -max-deviation and -max-true-peak; set says which of
	// them were given (the manifest gives the others).
	limits workspace.LoudnessLimits
	set    map[string]bool
}

func runVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "verify", verifyUsage)
	var o verifyOptions
	fs.BoolVar(&o.json, "json", false, "one JSON object per finding")
	fs.StringVar(&o.junit, "junit", "", "also write every check as a JUnit XML report to `FILE` (relative to the manifest directory)")
	fs.BoolVar(&o.loudness, "loudness", false, "also flag audio outputs whose loudness is far from the median or whose true peak is too high")
	fs.BoolVar(&o.deliver, "deliver", false, "also measure every delivered output and judge it by every rule of its profile")
	fs.BoolVar(&o.requireApproved, "require-approved", false, "also fail while any declared output is not approved, or its approval no longer holds")
	fs.BoolVar(&o.listen, "listen", false, "also judge every recorded listening check at the manifest's limits, and the seams of joined outputs")
	fs.BoolVar(&o.make, "make", false, "with -listen: first make the declared checks not recorded (billed ones need -auto-approve or a terminal's 'yes')")
	fs.BoolVar(&o.apply.autoApprove, "auto-approve", false, "with -make: make the checks that bill without asking")
	fs.IntVar(&o.apply.parallelism, "parallelism", 0, "with -make: at most `N` operations calling the service at once (default: service.parallelism, else 4)")
	o.apply.plan.service.register(fs)
	o.apply.plan.cache.register(env, fs)
	lockTimeoutFlag(fs, &o.apply.plan.lockTimeout)
	fs.Float64Var(&o.limits.MaxDeviation, "max-deviation", workspace.DefaultMaxDeviation, "with -loudness: the `LU` an output's integrated loudness may lie from the median (above 0, at most 100)")
	fs.Float64Var(&o.limits.MaxTruePeak, "max-true-peak", workspace.DefaultMaxTruePeak, "with -loudness: the highest true peak allowed, in `dBTP` (-100 to 20)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("verify takes no arguments")
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if (o.set["max-deviation"] || o.set["max-true-peak"]) && !o.loudness {
		return usageErrorf("verify: -max-deviation and -max-true-peak go with -loudness")
	}
	if err := o.checkListenFlags(); err != nil {
		return err
	}
	if err := manifest.CheckMaxDeviation(o.limits.MaxDeviation); err != nil {
		return usageErrorf("verify: -max-deviation %v", err)
	}
	if err := manifest.CheckMaxTruePeak(o.limits.MaxTruePeak); err != nil {
		return usageErrorf("verify: -max-true-peak %v", err)
	}
	return doVerify(ctx, env, &o)
}

func doVerify(ctx context.Context, env *Env, o *verifyOptions) error {
	var f findings
	if o.make {
		if err := makeChecks(ctx, env, o); err != nil {
			if interrupted(err) {
				return err
			}
			printError(env.Stderr, err) // what could not be made is reported as not checked
			f.add("the listening checks were not all made", "")
		}
	}
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	var m *manifest.Manifest
	manifestLimits := o.loudness && !(o.set["max-deviation"] && o.set["max-true-peak"])
	if o.listen || o.deliver || o.requireApproved || manifestLimits {
		if m, err = loadManifest(env, nil); err != nil {
			return err
		}
	}
	if manifestLimits {
		o.limits = limitsWith(o, m)
	}
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	res := verifyResult{resources: len(st.Resources)}
	if err := res.check(ctx, env, o, ws, m, st, &f); err != nil {
		return err
	}
	appendStepSummary(env, "verify", res.markdown)
	if o.junit != "" {
		if err := ws.WriteJUnit(o.junit, st, res.junit()); err != nil {
			return err
		}
	}
	return f.err()
}

// check makes the checks o asks for of st (and m, with -listen), writing
// what each finds to stdout and what fails to f.
func (res *verifyResult) check(ctx context.Context, env *Env, o *verifyOptions, ws *workspace.Workspace, m *manifest.Manifest, st *state.File, f *findings) error {
	var err error
	if res.found, res.hashed, err = ws.Verify(ctx, st); err != nil {
		return err
	}
	if n := writeDrift(env.Stdout, res, o.json); n > 0 {
		f.add(fmt.Sprintf("%d recorded output(s) are missing or modified", n), "'voxform plan' shows them as repairs; 'voxform apply' restores them")
	}
	if o.loudness {
		if res.loud, err = ws.CheckLoudness(ctx, st, o.limits, res.drifted()); err != nil {
			return err
		}
		if n := writeLoudness(env.Stdout, res.loud, o.json); n > 0 {
			f.add(fmt.Sprintf("%d audio output(s) are outside the loudness limits", n),
				"normalise them, or widen the limits with -max-deviation and -max-true-peak or the manifest's loudness: block")
		}
	}
	if o.listen {
		if res.listen, err = ws.CheckListen(ctx, m, st, res.drifted()); err != nil {
			return err
		}
		writeListen(env.Stdout, res.listen, o.json)
		listenFindings(res.listen, f)
	}
	if o.requireApproved {
		if err := res.checkApprovals(env.Stdout, m, st, o.json, f); err != nil {
			return err
		}
	}
	if o.deliver {
		return res.checkDeliveries(ctx, env, o, ws, m, st, f)
	}
	return nil
}

// findings are the problems verify found, each with a hint (or none).
type findings struct{ problems, hints []string }

func (f *findings) add(problem, hint string) {
	f.problems = append(f.problems, problem)
	if hint != "" {
		f.hints = append(f.hints, hint)
	}
}

// err is nil without problems, else exit status 1 naming them all.
func (f *findings) err() error {
	if len(f.problems) == 0 {
		return nil
	}
	return exitCode(ExitError, withHint(errors.New(strings.Join(f.problems, "; ")), strings.Join(f.hints, "; ")))
}

// writeDrift reports each file missing or modified, one line (or JSON
// object) each, and a summary line; it returns how many outputs drifted.
func writeDrift(w io.Writer, res *verifyResult, jsonOut bool) int {
	for _, d := range res.found {
		if jsonOut {
			writeJSONLine(w, d)
			continue
		}
		fmt.Fprintf(w, "%s: %s: %s\n", untrusted.Escape(d.Address), untrusted.Escape(d.Path), d.Problem)
	}
	if !jsonOut {
		fmt.Fprintf(w, "Verified %d recorded file(s) of %d resource(s): %d drifted.\n", len(res.hashed), res.resources, res.outputsDrifted())
	}
	return res.outputsDrifted()
}

// limitsWith is the limits of the flags given, the manifest's loudness:
// block for the others.
func limitsWith(o *verifyOptions, m *manifest.Manifest) workspace.LoudnessLimits {
	l := workspace.LimitsOf(m)
	if o.set["max-deviation"] {
		l.MaxDeviation = o.limits.MaxDeviation
	}
	if o.set["max-true-peak"] {
		l.MaxTruePeak = o.limits.MaxTruePeak
	}
	return l
}

// writeLoudness reports the outputs beyond the limits, one line (or JSON
// object) each, and a summary line; it returns how many there are.
func writeLoudness(w io.Writer, rep *workspace.LoudnessReport, jsonOut bool) int {
	flagged, measured, unmeasured := 0, 0, 0
	for i := range rep.Outputs {
		c := &rep.Outputs[i]
		if c.Measured {
			measured++
		}
		if c.Unmeasured != "" {
			unmeasured++
			if !jsonOut {
				fmt.Fprintf(w, "%s: %s: loudness not measured: %s\n", untrusted.Escape(c.Address), untrusted.Escape(c.Path), untrusted.Lines(c.Unmeasured))
			}
		}
		if !c.Flagged() {
			continue
		}
		flagged++
		if jsonOut {
			writeJSONLine(w, c)
			continue
		}
		fmt.Fprintf(w, "%s: %s: %s\n", untrusted.Escape(c.Address), untrusted.Escape(c.Path), loudnessProblems(c, rep.Limits))
	}
	if jsonOut {
		return flagged
	}
	median := "none (no output has an integrated loudness)"
	if rep.MedianLUFS != nil {
		median = fmt.Sprintf("%.1f LUFS", *rep.MedianLUFS)
	}
	fmt.Fprintf(w, "Loudness of %d audio output(s): median %s; %d beyond %g LU from it or above %g dBTP true peak",
		len(rep.Outputs), median, flagged, rep.Limits.MaxDeviation, rep.Limits.MaxTruePeak)
	if measured > 0 {
		fmt.Fprintf(w, "; %d measured now (no figures in the state, or the file changed)", measured)
	}
	if unmeasured > 0 {
		fmt.Fprintf(w, "; %d not measured", unmeasured)
	}
	fmt.Fprintln(w, ".")
	return flagged
}

// loudnessProblems says how c breaks the limits:
// "-14.2 LUFS, 8.9 LU louder than the median -23.1 LUFS (limit 3 LU); true peak 0.4 dBTP, above -1 dBTP".
func loudnessProblems(c *workspace.LoudnessCheck, lim workspace.LoudnessLimits) string {
	var ps []string
	if c.Loudness {
		dir, d := "louder", *c.DeviationLU
		if d < 0 {
			dir, d = "quieter", -d
		}
		ps = append(ps, fmt.Sprintf("%.1f LUFS, %.1f LU %s than the median %.1f LUFS (limit %g LU)",
			*c.IntegratedLUFS, d, dir, *c.MedianLUFS, lim.MaxDeviation))
	}
	if c.Peak {
		ps = append(ps, fmt.Sprintf("true peak %.1f dBTP, above %g dBTP", *c.TruePeakDBTP, lim.MaxTruePeak))
	}
	return strings.Join(ps, "; ")
}
