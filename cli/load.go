package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/workspace"
)

// varFlags are the -var and -var-file flags shared by every command that
// loads the manifest (validate, plan, apply, destroy, graph).
type varFlags struct {
	vars  []string
	files []string
}

type repeated struct{ list *[]string }

func (r repeated) String() string {
	if r.list == nil {
		return ""
	}
	return strings.Join(*r.list, ",")
}

func (r repeated) Set(s string) error {
	*r.list = append(*r.list, s)
	return nil
}

// register adds -var (repeatable) and -var-file (repeatable) to fs.
func (v *varFlags) register(fs *flag.FlagSet) {
	fs.Var(repeated{&v.vars}, "var", "set a variable: `NAME=VALUE` (repeatable; wins over -var-file and VOXFORM_VAR_NAME)")
	fs.Var(repeated{&v.files}, "var-file", "read variables from a YAML or JSON `FILE` (repeatable)")
}

// options returns the load options of the flags and the environment.
func (v *varFlags) options(env *Env) manifest.LoadOptions {
	opts := manifest.LoadOptions{}
	if v != nil {
		opts.Vars = append(opts.Vars, v.vars...)
		opts.VarFiles = append(opts.VarFiles, v.files...)
	}
	if env.Environ != nil {
		opts.Environ = env.Environ()
	}
	return opts
}

// loadManifest loads, expands and validates the manifest of env.Dir. It
// prints its diagnostics to stderr in the standard form, warnings of one
// kind folded after a few (writeFoldedDiagnostics), and returns an error
// when any of them is an error.
func loadManifest(env *Env, vars *varFlags) (*manifest.Manifest, error) {
	return loadManifestWith(env, vars.options(env))
}

// loadManifestWith is loadManifest with the load options given.
func loadManifestWith(env *Env, opts manifest.LoadOptions) (*manifest.Manifest, error) {
	m, ds := workspace.New(env.Dir).Load(opts)
	writeFoldedDiagnostics(env.Stderr, ds)
	if err := diagnosticsError(ds); err != nil {
		return nil, err
	}
	return m, nil
}

// diagnosticsError summarises the errors of ds, already printed, as the
// error a command returns; nil when there are none.
func diagnosticsError(ds manifest.Diagnostics) error {
	errs, _ := ds.Count()
	if errs == 0 {
		return nil
	}
	noun := "errors"
	if errs == 1 {
		noun = "error"
	}
	return withHint(fmt.Errorf("the manifest has %d %s", errs, noun), "fix the problems above and run 'voxform validate'")
}
