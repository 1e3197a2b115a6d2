package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "approve", synopsis: "record who signed off which outputs ('-revoke' withdraws it)", run: runApprove})
}

const approveUsage = `
Usage: voxform approve [flags] ADDRESS...
       voxform approve -revoke ADDRESS...

Records in the state that the outputs of each resource named, as they are
now, are approved: the SHA-256 of their bytes, who approved them and when.
ADDRESS is an address, a block (synthesis.menu: every instance of it), or
a pattern in which * stands for any characters (synthesis.menu[*],
synthesis.*). An approval holds only for the bytes approved: once the
outputs change, 'voxform state show' and 'voxform verify -require-approved'
say it was lost, and a plan that would change them says it will no longer
hold. With lifecycle: {keep_approved: true}, a plan keeps approved outputs
as they are (pinned) unless -replace names them.

Only a resource that is made and in step with the manifest (a plan would
leave it as it is) can be approved; anything else is refused, and nothing
is recorded. -revoke withdraws the approvals of the resources named.

-expect ADDRESS=SHA256 (repeatable) approves ADDRESS only if its outputs
are still the ones reviewed: their digest (state.OutputsDigest, as the
report page shows it) must be SHA256, else nothing is recorded. The report
page's tick boxes write such a command, so that what is approved is what
was heard, not what was made since. The addresses of -expect are approved
as if named.

-by defaults to the git user of the manifest directory ('git config
user.name' and user.email: "Name <email>").

Flags:
`

// approveOptions are the flags of approve.
type approveOptions struct {
	by, note    string
	revoke      bool
	json        bool
	vars        varFlags
	lockTimeout time.Duration
	patterns    []string
	// expect is each -expect ADDRESS=SHA256: the outputs digest an
	// address must have to be approved.
	expect map[string]string
}

func runApprove(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "approve", approveUsage)
	var o approveOptions
	fs.StringVar(&o.by, "by", "", "who approves: `NAME` (default: the git user)")
	fs.StringVar(&o.note, "note", "", "a note recorded with the approval: `TEXT` (a ticket, what was checked)")
	fs.BoolVar(&o.revoke, "revoke", false, "withdraw the approvals of the resources named")
	fs.BoolVar(&o.json, "json", false, "one JSON object per resource")
	var expect []string
	fs.Var(repeated{&expect}, "expect", "approve `ADDRESS=SHA256` only if its outputs digest is SHA256 (repeatable)")
	o.vars.register(fs)
	lockTimeoutFlag(fs, &o.lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.patterns = fs.Args()
	if err := o.parseExpect(expect); err != nil {
		return err
	}
	if len(o.patterns) == 0 {
		return usageErrorf("approve: expected at least one address")
	}
	if o.revoke && (o.by != "" || o.note != "") {
		return usageErrorf("approve: -by and -note do not go with -revoke")
	}
	if err := state.CheckText("-note", o.note, state.MaxApprovalNote); err != nil {
		return usageErrorf("approve: %v", err)
	}
	if err := state.CheckText("-by", o.by, state.MaxApprovalBy); err != nil {
		return usageErrorf("approve: %v", err)
	}
	return doApprove(ctx, env, &o)
}

func doApprove(ctx context.Context, env *Env, o *approveOptions) (err error) {
	var m *manifest.Manifest
	if !o.revoke {
		if m, err = loadManifest(env, &o.vars); err != nil {
			return err
		}
		if o.by == "" {
			if o.by, err = gitUser(env); err != nil {
				return err
			}
		}
	}
	ws, err := openWorkspace(env, &o.vars, o.lockTimeout)
	if err != nil {
		return err
	}
	defer ws.Close()
	sess, err := ws.Lock(ctx, "approve")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := sess.Close(); err == nil {
			err = cerr
		}
	}()
	approvals, err := approvalsFor(ctx, sess, m, o)
	if err != nil {
		return err
	}
	rec, err := sess.Recorder()
	if err != nil {
		return err
	}
	if err := rec.SetApprovals(approvals); err != nil {
		return err
	}
	if err := sess.Close(); err != nil {
		return err
	}
	return writeApprovals(env, approvals, o)
}

// parseExpect reads the -expect values into o.expect, each address also
// named as a pattern (an exact address names only itself).
func (o *approveOptions) parseExpect(values []string) error {
	if len(values) > 0 && o.revoke {
		return usageErrorf("approve: -expect does not go with -revoke")
	}
	for _, v := range values {
		i := strings.LastIndexByte(v, '=')
		if i < 0 || !state.IsHexHash(v[i+1:]) {
			return usageErrorf("approve: -expect %q: want ADDRESS=SHA256 (64 lowercase hex digits)", untrusted.Escape(v))
		}
		if o.expect == nil {
			o.expect = map[string]string{}
		}
		o.expect[v[:i]] = v[i+1:]
		o.patterns = append(o.patterns, v[:i])
	}
	return nil
}

// approvalsFor is what approve records: the approval of each address the
// patterns name (nil for each with -revoke), or an error naming every
// address refused.
func approvalsFor(ctx context.Context, sess *workspace.Session, m *manifest.Manifest, o *approveOptions) (map[string]*state.Approval, error) {
	st, err := sess.State()
	if err != nil {
		return nil, err
	}
	if o.revoke {
		addrs, err := matchPatterns(o.patterns, st.Addresses(), "approve -revoke", "in the state")
		if err != nil {
			return nil, err
		}
		out := make(map[string]*state.Approval, len(addrs))
		for _, a := range addrs {
			out[a] = nil
		}
		return out, nil
	}
	addrs, err := matchPatterns(o.patterns, declaredAddresses(m), "approve", "declared in the manifest")
	if err != nil {
		return nil, err
	}
	p, err := sess.Plan(ctx, m, planner.Options{Targets: blocksOf(addrs), Cache: planner.CacheOff})
	if err != nil {
		return nil, fmt.Errorf("approve: %w", err)
	}
	st, err = sess.State() // as the plan read it
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	out := make(map[string]*state.Approval, len(addrs))
	pinned := make(map[string]*planner.Pinned, len(p.Pinned))
	for i := range p.Pinned {
		pinned[p.Pinned[i].Address] = &p.Pinned[i]
	}
	var refused []string
	for _, a := range addrs {
		if why := notApprovable(p.Action(a), pinned[a], st.Resources[a]); why != "" {
			refused = append(refused, a+": "+why)
			continue
		}
		digest := state.OutputsDigest(st.Resources[a].Outputs)
		if want, ok := o.expect[a]; ok && want != digest {
			refused = append(refused, fmt.Sprintf("%s: its outputs are not the ones reviewed (outputs %.12s, reviewed %.12s)", a, digest, want))
			continue
		}
		out[a] = &state.Approval{Digest: digest, By: o.by, At: now, Note: o.note}
	}
	if len(refused) > 0 {
		return nil, withHint(fmt.Errorf("approve: %d of %d resource%s cannot be approved (nothing was recorded): %s",
			len(refused), len(addrs), pluralS(len(addrs)), untrusted.Escape(strings.Join(refused, "; "))),
			"'voxform apply' makes them as the manifest declares them; approve what it made")
	}
	return out, nil
}

// notApprovable says why a resource recorded as r, for which the plan
// has action a (nil: none) and pin (nil: not pinned), cannot be approved
// as it is ("" when it can): approving it would approve bytes that no
// plan keeps.
func notApprovable(a *planner.Action, pin *planner.Pinned, r *state.Resource) string {
	switch {
	case a != nil:
		return fmt.Sprintf("the plan would %s it (%s)", a.Type, strings.Join(a.Reasons, "; "))
	case pin != nil:
		return "pinned: its outputs are of an older request (" + strings.Join(pin.Reasons, "; ") + ")"
	}
	switch {
	case r == nil:
		return "not made"
	case r.Status != state.StatusComplete:
		return "not complete"
	case len(r.Outputs) == 0:
		return "it records no output to approve"
	}
	return ""
}

// blocksOf is the blocks of addrs (synthesis.menu for
// synthesis.menu["a"]), each once: the targets of the plan that judges
// them (a target per instance of a large block made the plan quadratic).
func blocksOf(addrs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range addrs {
		if i := strings.IndexByte(a, '['); i > 0 {
			a = a[:i]
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// declaredAddresses are the addresses of the resources m declares that
// write outputs, sorted.
func declaredAddresses(m *manifest.Manifest) []string {
	var out []string
	for _, e := range m.Embeddings {
		out = append(out, e.Address)
	}
	for _, s := range m.Syntheses {
		out = append(out, s.Address)
	}
	for _, t := range m.Transcriptions {
		out = append(out, t.Address)
	}
	for _, p := range m.Packages {
		out = append(out, p.Address)
	}
	sort.Strings(out)
	return out
}

// matchPatterns is the addresses among addrs that the patterns name (see
// matchAddress), sorted and each once; a pattern naming none is an error.
// A pattern that is one of addrs names only that address: a for_each
// key may hold a *, and the report page's approve command names what
// was ticked, nothing more.
func matchPatterns(patterns, addrs []string, cmd, where string) ([]string, error) {
	seen := map[string]bool{}
	exact := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		exact[a] = true
	}
	var out []string
	for _, p := range patterns {
		n := 0
		for _, a := range addrs {
			if a == p || !exact[p] && matchAddress(p, a) {
				n++
				if !seen[a] {
					seen[a] = true
					out = append(out, a)
				}
			}
		}
		if n == 0 {
			return nil, withHint(fmt.Errorf("%s: %s names no resource %s", cmd, untrusted.Escape(p), where),
				"run 'voxform state list' for the recorded addresses")
		}
	}
	sort.Strings(out)
	return out, nil
}

// matchAddress reports whether pattern names addr: the address itself, a
// block of it (state.MatchAddress), or a pattern whose * stands for any
// characters, brackets and quotes included (synthesis.menu[*]).
func matchAddress(pattern, addr string) bool {
	if state.MatchAddress(pattern, addr) {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return false
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(addr, parts[0]) {
		return false
	}
	rest := addr[len(parts[0]):]
	for i, part := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(rest, part) && len(rest) >= len(part)
		}
		j := strings.Index(rest, part)
		if j < 0 {
			return false
		}
		rest = rest[j+len(part):]
	}
	return true
}

// gitUser is the git user of the manifest directory, as 'git config'
// gives it: "Name <email>", or either alone.
func gitUser(env *Env) (string, error) {
	noUser := withHint(errors.New("approve: no approver: git names no user.name or user.email here"), "pass -by NAME")
	if _, err := exec.LookPath("git"); err != nil {
		return "", noUser
	}
	get := func(key string) string {
		cmd := exec.Command("git", "-C", env.Dir, "config", "--get", key)
		if env.Environ != nil {
			cmd.Env = env.Environ()
		}
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	name, email := get("user.name"), get("user.email")
	by := strings.TrimSpace(name + " <" + email + ">")
	switch {
	case name == "" && email == "":
		return "", noUser
	case email == "":
		by = name
	case name == "":
		by = email
	}
	if err := state.CheckText("git user", by, state.MaxApprovalBy); err != nil {
		return "", withHint(fmt.Errorf("approve: %w", err), "pass -by NAME")
	}
	return by, nil
}

// approvalLine is one resource approve recorded, in -json output.
type approvalLine struct {
	Address  string          `json:"address"`
	Revoked  bool            `json:"revoked,omitempty"`
	Approval *state.Approval `json:"approval,omitempty"`
}

// writeApprovals reports what approve recorded, one line (or JSON object)
// per address, then a summary line.
func writeApprovals(env *Env, approvals map[string]*state.Approval, o *approveOptions) error {
	addrs := make([]string, 0, len(approvals))
	for a := range approvals {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		ap := approvals[a]
		if o.json {
			if err := writeJSONLine(env.Stdout, approvalLine{Address: a, Revoked: ap == nil, Approval: ap}); err != nil {
				return err
			}
			continue
		}
		if ap == nil {
			fmt.Fprintf(env.Stdout, "Revoked the approval of %s\n", untrusted.Escape(a))
		} else {
			fmt.Fprintf(env.Stdout, "Approved %s (outputs %s) by %s\n", untrusted.Escape(a), ap.Digest[:12], untrusted.Escape(ap.By))
		}
	}
	if !o.json {
		verb := "Approved"
		if o.revoke {
			verb = "Revoked the approvals of"
		}
		fmt.Fprintf(env.Stdout, "%s %d resource%s.\n", verb, len(addrs), pluralS(len(addrs)))
	}
	return nil
}
