package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/voxform/voxform/internal/untrusted"
)

// Exit codes shared by every subcommand.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitChanges     = 2
	ExitInterrupted = 130
)

// Env is everything a subcommand may touch of the outside world. Tests build
// one with buffers and a fake environment; main uses StdEnv.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Environ lists the environment as KEY=VALUE pairs (for VOXFORM_VAR_*).
	Environ func() []string
	// Dir is the working directory, after -chdir.
	Dir string
	// CacheDir is the user's output cache directory, the default of
	// cache.dir ("" when the system names no cache directory).
	CacheDir string
	// Interactive reports whether stdin is a terminal: only then may a
	// command ask a question (apply's 'yes').
	Interactive bool
	// Terminal reports whether stdout is a terminal: it alone decides the
	// live progress display and colours (apply -auto-approve < /dev/null on
	// a terminal still gets them).
	Terminal bool
}

// StdEnv returns the process environment.
func StdEnv() *Env {
	wd, _ := os.Getwd()
	cacheDir := ""
	if d, err := os.UserCacheDir(); err == nil {
		cacheDir = filepath.Join(d, "voxform")
	}
	return &Env{
		CacheDir:    cacheDir,
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Getenv:      os.Getenv,
		Environ:     os.Environ,
		Dir:         wd,
		Interactive: term.IsTerminal(int(os.Stdin.Fd())),
		Terminal:    term.IsTerminal(int(os.Stdout.Fd())),
	}
}

// command is one subcommand. run returns nil on success; an *exitError to
// choose a specific exit code; any other error is printed in the voxform
// error style and exits 1.
type command struct {
	name     string
	synopsis string
	run      func(ctx context.Context, env *Env, args []string) error
}

var commands = map[string]*command{}

// register adds a subcommand; each subcommand file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("cli: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

const usageHead = `voxform builds speech assets declared in YAML manifests.

Usage:
	voxform [-chdir DIR] COMMAND [flags]

Commands:
`

const usageTail = `
Run 'voxform COMMAND -h' for the flags of a command.
`

func usage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "\t%-13s %s\n", n, commands[n].synopsis)
	}
	fmt.Fprint(w, usageTail)
}

// Run parses the global flags, dispatches to a subcommand and returns the
// process exit code. It never panics on bad input and never calls os.Exit.
// Cancelling ctx interrupts the command; with a ctx from NotifyInterrupts a
// second interrupt also cancels apply's calls in flight.
func Run(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("voxform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	chdir := fs.String("chdir", "", "switch to `DIR` before running the command")
	help := fs.Bool("h", false, "show help")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(env.Stdout)
			return ExitOK
		}
		return report(env, usageErrorf("%v", err))
	}
	rest := fs.Args()
	if *help || len(rest) == 0 || rest[0] == "help" {
		if len(rest) > 1 && rest[0] == "help" {
			if c, ok := commands[rest[1]]; ok {
				return report(env, c.run(ctx, env, []string{"-h"}))
			}
		}
		usage(env.Stdout)
		if len(rest) == 0 && !*help {
			return ExitError
		}
		return ExitOK
	}
	if *chdir != "" {
		dir := *chdir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Dir, dir)
		}
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			return report(env, fmt.Errorf("-chdir %s: not a directory", *chdir))
		}
		e := *env
		e.Dir = filepath.Clean(dir)
		env = &e
	}
	c, ok := commands[rest[0]]
	if !ok {
		return report(env, withHint(fmt.Errorf("unknown command %q", rest[0]), didYouMeanCommand(rest[0])))
	}
	return report(env, c.run(ctx, env, rest[1:]))
}

func didYouMeanCommand(name string) string {
	best, bestD := "", 3
	for n := range commands {
		if d := editDistance(name, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	if best == "" {
		return "run 'voxform -h' for the list of commands"
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// exitError carries a specific exit code. A nil err means nothing more is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitCode returns an error that makes Run return code, printing err if non-nil.
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

// hintError attaches a hint line to an error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }
func (e *hintError) Hint() string  { return e.hint }

// hinted is an error with advice to print after it (hintError, or an error
// of the workflow).
type hinted interface {
	error
	Hint() string
}

// withHint returns err with a "hint:" line to print after it.
func withHint(err error, hint string) error {
	if err == nil || hint == "" {
		return err
	}
	return &hintError{err: err, hint: hint}
}

// usageErrorf reports a bad flag or argument.
func usageErrorf(format string, a ...any) error {
	return withHint(fmt.Errorf(format, a...), "run with -h for usage")
}

// report prints err in the voxform style and returns the exit code.
func report(env *Env, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	code := ExitError
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	if errors.Is(err, context.Canceled) && ee == nil {
		// Interrupted before anything was started (apply reports its own
		// interruptions with what was done).
		code = ExitInterrupted
		err = withHint(errors.New("interrupted"), "nothing was changed")
	}
	printError(env.Stderr, err)
	return code
}

// printError writes "voxform: msg" and any "hint: ..." lines. Messages are
// lowercase with no final period, as everywhere in voxform. An error may
// quote a server, a remote or a state: what could act on the terminal is
// escaped (untrusted.Lines).
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "voxform: %s\n", untrusted.Lines(strings.TrimSpace(err.Error())))
	var he hinted
	if errors.As(err, &he) {
		for _, line := range strings.Split(he.Hint(), "\n") {
			fmt.Fprintf(w, "hint: %s\n", untrusted.Escape(line))
		}
	}
}

// newFlagSet builds a subcommand's flag set. Its usage text goes to stdout on
// -h; parse errors are returned, never printed by the flag package.
func newFlagSet(env *Env, name, usageText string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprint(env.Stdout, strings.TrimLeft(usageText, "\n"))
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args: -h prints the usage and gives flag.ErrHelp; other
// problems become usage errors, without the usage (the flag package would
// print it for those too, so it is held back while parsing).
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return flag.ErrHelp
		}
		return usageErrorf("%s: %v", fs.Name(), err)
	}
	return nil
}
