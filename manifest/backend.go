package manifest

import (
	"regexp"

	"github.com/voxform/voxform/state"
	"go.yaml.in/yaml/v3"
)

// LoadBackend reads the backend: block of the manifests of dir (and the
// variables that override it), with the variables it may use, and checks
// it, for the commands that must know where the state is before they load
// the manifest in full (which reads and checks the block again, with the
// rest).
func LoadBackend(dir string, opts LoadOptions) (Backend, Diagnostics) {
	var raw *Raw
	var ds Diagnostics
	if names, err := ManifestFiles(dir); err == nil && len(names) == 0 {
		// No manifest (show or state pull in a bare directory): the
		// environment and the defaults decide.
		raw = &Raw{Dir: dir}
	} else if raw, ds = Parse(dir, opts); raw == nil {
		return Backend{}, ds
	}
	b, eds := expandBackend(raw, opts)
	ds.Append(eds)
	ds.Sort()
	return b, ds
}

// backendEnv are the environment variables that set backend: fields.
var backendEnv = []envField{
	{"VOXFORM_BACKEND", "type"}, {"VOXFORM_WORKSPACE", "workspace"},
}

func (x *expander) backend() {
	bk := &x.m.Backend
	bk.Fields = map[string]Pos{}
	b, fs := x.singleton("backend")
	if b != nil {
		sc := x.scope()
		bk.Pos = b.Pos()
		bk.Fields = fieldPositions(fs)
		bk.Type, _, _ = x.str(fs["type"], sc)
		bk.ConnStrEnv, _, _ = x.str(fs["conn_str_env"], sc)
		bk.Schema, _, _ = x.str(fs["schema"], sc)
		bk.Workspace, _, _ = x.str(fs["workspace"], sc)
		bk.Lease, _ = x.duration(fs["lease"], sc)
	}
	x.fromEnv(backendEnv, map[string]*string{"type": &bk.Type, "workspace": &bk.Workspace}, bk.Fields)
	if bk.Type == "" {
		bk.Type = BackendLocal
	}
	if bk.ConnStrEnv == "" {
		bk.ConnStrEnv = "VOXFORM_PG"
	}
	checkBackend(*bk, &x.ds)
}

// expandBackend is Expand of the backend: block alone (with the variables
// it may use), for LoadBackend.
func expandBackend(raw *Raw, opts LoadOptions) (Backend, Diagnostics) {
	defer raw.closeInputs()
	x := &expander{raw: raw, opts: opts, m: &Manifest{Dir: raw.Dir, Variables: map[string]any{}},
		dataSeen: map[string]bool{}, dataCache: map[string]*dataFile{}}
	files := make(map[string]*File, len(raw.Files))
	for _, f := range raw.Files {
		files[f.Name] = f
	}
	x.ip = &interpolator{files: files, lines: map[string][]int{}, literals: map[*yaml.Node][]Span{}}
	x.vars = x.resolveVars()
	x.varNames = mapKeys(x.vars)
	x.backend()
	x.ds.Sort()
	return x.m.Backend, x.ds
}

// envName is what an environment variable's name may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkBackend checks a backend: block (and the variables that set its
// fields) without connecting: its type, names and lease. The connection
// string is not read: validate needs no secret.
func checkBackend(b Backend, ds *Diagnostics) {
	at := func(f string) Pos { return FieldPos(b.Fields, f, b.Pos) }
	switch b.Type {
	case BackendLocal:
		for _, f := range []string{"conn_str_env", "schema", "workspace", "lease"} {
			if _, set := b.Fields[f]; set {
				ds.Warnf(at(f), "backend.%s has no effect with the local backend", f)
			}
		}
		return
	case BackendPG:
	default:
		ds.Errorf(at("type"), "backend.type %q: want local or pg", b.Type)
		return
	}
	if !envName.MatchString(b.ConnStrEnv) {
		// Not echoed: it may be the connection string itself, password
		// and all.
		ds.Errorf(at("conn_str_env"), "backend.conn_str_env is not an environment variable's name").
			WithHint("name the variable that holds the connection string, e.g. VOXFORM_PG; the string itself never goes in a manifest")
	}
	for _, f := range []struct {
		name string
		cfg  state.PGConfig
	}{{"schema", state.PGConfig{Schema: b.Schema}}, {"workspace", state.PGConfig{Workspace: b.Workspace}}, {"lease", state.PGConfig{Lease: b.Lease}}} {
		if err := state.CheckPGConfig(f.cfg); err != nil {
			ds.Errorf(at(f.name), "%v", err)
		}
	}
}
