package cli

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/provenance"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "provenance", synopsis: "write (and verify) signed in-toto/SLSA provenance of recorded outputs", run: runProvenance})
}

const provenanceUsage = `
Usage: voxform provenance [flags] [ADDRESS...]
       voxform provenance keygen FILE
       voxform provenance verify [-pub KEY] [-input-dir DIR]... FILE|DIR...

Writes, for every output recorded for the resources named (every recorded
resource by default), an in-toto Statement v1 with a SLSA Provenance v1
predicate: the output's path and SHA-256; the exact request recorded (the
text sent, every setting, the hashes of the inputs; never a key); every
input file by path and SHA-256 (recording, text_file, lexicon, reference
audio, embedding, the manifest and for_each data files) and the git commit
of the manifest directory; the service's ids, model, times and what was
billed. Each goes to DIR/OUTPUT.intoto.json (-out, default provenance),
or, signed with -key as a DSSE envelope, to DIR/OUTPUT.intoto.dsse.json.

The inputs are those the manifest declares now, so a resource is attested
only when it is as recorded: complete, declared with the same request and
input contents, its outputs on disk as recorded. Any other is refused,
named, and nothing is written ('voxform plan' shows why).

keygen writes a new ed25519 key: FILE (PKCS#8 PEM, owner-readable only)
and FILE.pub (PKIX PEM). Keep FILE out of version control.

verify checks each provenance file (a directory: each *.intoto.json and
*.intoto.dsse.json below it): with -pub, that it is signed by that key;
then every output and input file it names against the file on disk
(relative to the manifest directory; an absolute name only inside a
directory given with -input-dir). Exit status 1 when anything differs,
is missing, or is not signed by the key.

Flags:
`

// provenanceOptions are the flags of provenance.
type provenanceOptions struct {
	out, key string
	json     bool
	vars     varFlags
}

func runProvenance(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "keygen":
			return runProvenanceKeygen(env, args[1:])
		case "verify":
			return runProvenanceVerify(ctx, env, args[1:])
		}
	}
	fs := newFlagSet(env, "provenance", provenanceUsage)
	var o provenanceOptions
	fs.StringVar(&o.out, "out", "provenance", "write the statements below `DIR` (relative to the manifest directory)")
	fs.StringVar(&o.key, "key", "", "sign each statement as a DSSE envelope with the ed25519 private key in `FILE` (PKCS#8 PEM; see 'provenance keygen')")
	fs.BoolVar(&o.json, "json", false, "one JSON object per file written")
	o.vars.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return doProvenance(ctx, env, &o, fs.Args())
}

func doProvenance(ctx context.Context, env *Env, o *provenanceOptions, addrs []string) error {
	key, err := signingKey(env, o.key)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(env, &o.vars, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	m, err := loadManifest(env, &o.vars)
	if err != nil {
		return err
	}
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	atts, err := ws.Provenance(ctx, m, st, workspace.ProvenanceOptions{Addresses: addrs, Secrets: secretsOf(env, m)})
	if err != nil {
		return err
	}
	resources := map[string]bool{}
	for _, a := range atts {
		b, suffix := a.Payload, ".intoto.json"
		if key != nil {
			if b, err = provenance.MarshalEnvelope(provenance.Sign(a.Payload, key)); err != nil {
				return err
			}
			suffix = ".intoto.dsse.json"
		}
		path, err := ws.WriteAttestation(st, o.out, a.Output, suffix, b)
		if err != nil {
			return err
		}
		resources[a.Address] = true
		writeAttestation(env, o, a, path, key != nil)
	}
	if !o.json {
		how := "unsigned"
		if key != nil {
			how = "signed by key " + provenance.KeyID(key.Public().(ed25519.PublicKey))
		}
		fmt.Fprintf(env.Stdout, "Wrote %d provenance statement(s) of %d resource(s) below %s, %s.\n", len(atts), len(resources), untrusted.Escape(o.out), how)
	}
	return nil
}

// signingKey is the private key of -key (nil without it).
func signingKey(env *Env, name string) (ed25519.PrivateKey, error) {
	if name == "" {
		return nil, nil
	}
	b, err := provenance.ReadKeyFile(envPath(env, name))
	var key ed25519.PrivateKey
	if err == nil {
		key, err = provenance.ParsePrivateKey(b)
	}
	if err != nil {
		return nil, withHint(fmt.Errorf("-key %s: %w", name, err), "'voxform provenance keygen FILE' writes a key")
	}
	return key, nil
}

// writeAttestation reports one file written.
func writeAttestation(env *Env, o *provenanceOptions, a workspace.Attestation, path string, signed bool) {
	rel := path
	if r, err := filepath.Rel(env.Dir, path); err == nil && filepath.IsLocal(r) {
		rel = filepath.ToSlash(r)
	}
	if o.json {
		writeJSONLine(env.Stdout, struct {
			Address string `json:"address"`
			Output  string `json:"output"`
			File    string `json:"file"`
			Signed  bool   `json:"signed"`
		}{a.Address, a.Output, rel, signed})
		return
	}
	fmt.Fprintf(env.Stdout, "%s: %s: %s\n", untrusted.Escape(a.Address), untrusted.Escape(a.Output), untrusted.Escape(rel))
}

// envPath is name relative to the working directory (after -chdir).
func envPath(env *Env, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(env.Dir, name)
}

// secretsOf are the secrets of the environment no statement may hold, by
// variable: the API key, the state backend's connection string and its
// password, the storage credentials.
func secretsOf(env *Env, m *manifest.Manifest) map[string]string {
	keyVar := m.Service.APIKeyEnv
	if keyVar == "" {
		keyVar = "VOXFORM_API_KEY"
	}
	pgVar := m.Backend.ConnStrEnv
	if pgVar == "" {
		pgVar = "VOXFORM_PG"
	}
	out := map[string]string{}
	for _, v := range []string{keyVar, pgVar, "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		if s := env.Getenv(v); s != "" {
			out[v] = s
		}
	}
	if u, err := url.Parse(out[pgVar]); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			out[pgVar+" (its password)"] = p
		}
	}
	return out
}

func runProvenanceKeygen(env *Env, args []string) error {
	fs := newFlagSet(env, "provenance keygen", provenanceUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("provenance keygen: expected one FILE, the private key to write")
	}
	name := fs.Arg(0)
	path := envPath(env, name)
	pub, err := provenance.WriteKeyPair(path)
	if err != nil {
		return err
	}
	b, err := provenance.ReadKeyFile(pub)
	if err != nil {
		return err
	}
	pk, err := provenance.ParsePublicKey(b)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote the private key %s (owner-readable only) and the public key %s.pub (key id %s).\n",
		untrusted.Escape(name), untrusted.Escape(name), provenance.KeyID(pk))
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil && owned.Within(real, realDir(env.Dir)) {
		fmt.Fprintf(env.Stderr, "voxform: warning: the private key is inside the manifest directory; keep it out of version control\n")
	}
	return nil
}

// realDir is dir with its links resolved (dir itself when it cannot be).
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
