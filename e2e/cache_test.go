package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/miniotest"
)

const twoPrompts = `version: 1
voices:
  n: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  welcome: { voice: n, text: "नमस्ते, स्वागत है।", output: build/welcome.wav }
  hold: { voice: n, text: "कृपया प्रतीक्षा करें।", output: build/hold.wav }
`

// Reverting a text to an earlier value restores its earlier audio from
// the local cache: the plan shows a free restore, the apply calls nothing,
// and the file is the one first made, byte for byte.
func TestRevertRestoresFromCache(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{Seed: 7})
	p := newProject(t, "", e)
	p.writeFile("voxform.yaml", twoPrompts)
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	first := p.readFile("build/welcome.wav")
	editFile(t, p.path("voxform.yaml"), "नमस्ते, स्वागत है।", "नमस्ते, आपका स्वागत है।")
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if p.readFile("build/welcome.wav") == first {
		t.Fatal("the edited text made the same audio")
	}
	editFile(t, p.path("voxform.yaml"), "नमस्ते, आपका स्वागत है।", "नमस्ते, स्वागत है।")
	changes, sum := p.plan()
	if sum.Restore != 1 || sum.changes() != 1 || sum.Cost.Characters != 0 || changes[0].RestoreFrom != "local" {
		t.Fatalf("plan after the revert: %+v %+v, want one free restore from the local cache", sum, changes)
	}
	before := e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if calls := e.stats(t).calls() - before; calls != 0 {
		t.Errorf("the restore made %d calls", calls)
	}
	if p.readFile("build/welcome.wav") != first {
		t.Error("the restored audio is not the audio first made")
	}
	p.assertNoChanges()
	// Without the cache the same revert is billed work again.
	editFile(t, p.path("voxform.yaml"), "नमस्ते, स्वागत है।", "नमस्ते, आपका स्वागत है।")
	if _, sum := p.plan("-cache=off"); sum.Replace != 1 || sum.Cost.Characters == 0 {
		t.Errorf("plan -cache=off: %+v, want a billed replace", sum)
	}
}

// withRemote points p at the S3 remote url on server s, credentials in the
// standard AWS variables.
func withRemote(p *project, s *miniotest.Server, url string) {
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE="+url, "VOXFORM_CACHE_ENDPOINT=http://"+s.Endpoint,
		"AWS_ACCESS_KEY_ID="+s.AccessKey, "AWS_SECRET_ACCESS_KEY="+s.SecretKey, "AWS_REGION=us-east-1")
}

// A second repository asking for the same work restores it from the team's
// remote cache (MinIO here) with no call to the service; a fresh clone of
// an applied project with its state but no outputs pulls every output back,
// byte for byte, with no call either.
func TestRemoteCacheAcrossRepositories(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	s := miniotest.Start(t)
	url := s.URL(s.Bucket(t), "team/speech")
	e := startEmulator(t, emulator.Options{Seed: 7})
	for _, example := range []string{"ivr-prompts", "short-clips", "call-transcripts"} {
		t.Run(example, func(t *testing.T) {
			a := newProject(t, example, e)
			withRemote(a, s, url)
			if r := a.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			outputs := recordedOutputs(t, a)
			if len(outputs) == 0 {
				t.Fatal("nothing recorded")
			}
			// A second repository: the same manifest, its own state and
			// local cache, the same remote.
			b := newProject(t, example, e)
			withRemote(b, s, url)
			changes, sum := b.plan()
			if sum.Restore == 0 || sum.Restore != sum.changes() || sum.Cost.Characters != 0 || sum.Cost.AudioSeconds != 0 {
				t.Fatalf("second repository: %+v, want only free restores", sum)
			}
			for _, c := range changes {
				if c.RestoreFrom != url {
					t.Errorf("%s restores from %q, want %s", c.Address, c.RestoreFrom, url)
				}
			}
			before := e.stats(t).calls()
			if r := b.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			if calls := e.stats(t).calls() - before; calls != 0 {
				t.Errorf("the second repository made %d calls", calls)
			}
			sameOutputs(t, a, b, outputs)
			b.assertNoChanges()

			// A fresh clone: the manifest and the state, no outputs, an
			// empty local cache.
			c := cloneWithoutOutputs(t, a, e, outputs)
			withRemote(c, s, url)
			before = e.stats(t).calls()
			r := c.run("pull")
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			if calls := e.stats(t).calls() - before; calls != 0 {
				t.Errorf("pull made %d calls", calls)
			}
			sameOutputs(t, a, c, outputs)
			c.assertNoChanges()
		})
	}
}

// recordedOutputs lists the output paths p's state records.
func recordedOutputs(t *testing.T, p *project) []string {
	t.Helper()
	var st struct {
		Resources map[string]struct {
			Outputs []struct{ Path string } `json:"outputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(p.readFile("voxform.state.json")), &st); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range st.Resources {
		for _, o := range r.Outputs {
			out = append(out, o.Path)
		}
	}
	return out
}

// sameOutputs fails unless every path holds the same bytes in a and b.
func sameOutputs(t *testing.T, a, b *project, paths []string) {
	t.Helper()
	for _, rel := range paths {
		x, err1 := os.ReadFile(a.path(rel))
		y, err2 := os.ReadFile(b.path(rel))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs: %v %v (%d and %d bytes)", rel, err1, err2, len(x), len(y))
		}
	}
}

// cloneWithoutOutputs copies p's directory as git would check it out when
// the outputs are ignored: everything but the recorded outputs and .voxform.
func cloneWithoutOutputs(t *testing.T, p *project, e *emu, outputs []string) *project {
	t.Helper()
	c := newProject(t, "", e)
	skip := map[string]bool{}
	for _, o := range outputs {
		skip[o] = true
	}
	err := filepath.WalkDir(p.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p.dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && (rel == ".voxform" || strings.HasPrefix(rel, ".cache")):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(c.path(rel), 0o755)
		case skip[rel]:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(c.path(rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKill9DuringRestore kills 'voxform apply' with SIGKILL while it
// restores a second repository's outputs from the team's remote cache, then
// applies again, round after round. The kills are aimed, as in
// TestKill9Converges: a proxy in front of MinIO kills voxform at the nth
// request of one kind (restorePoints: an entry read, a blob cut mid-body, a
// blob fully downloaded while other restores are copying their files into
// place). Each round opens with a kill at its own point, then kills at
// random points until an apply finishes, and must converge with nothing
// billed (the emulator sees no call at all), every output byte for byte the
// one the first repository made and pushed, the state recording every
// resource as complete and paid for by nobody here, and no temporary file
// left in the project or in its local cache.
func TestKill9DuringRestore(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 14))
	s := miniotest.Start(t)
	url := s.URL(s.Bucket(t), "team/speech")
	e := startEmulator(t, emulator.Options{Seed: 7, NoEspeak: true})
	a := newProject(t, "", e)
	writeRestorePrompts(a, restorePrompts)
	withRemote(a, s, url)
	if r := a.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	want := a.readState()
	blobs := map[string]bool{}
	for _, r := range want.Resources {
		for _, o := range r.Outputs {
			blobs[o.SHA256] = true
		}
	}
	// Each restore then downloads a blob of its own: a fresh apply makes
	// restorePrompts blob requests, as restorePoints counts on.
	if len(want.Resources) != restorePrompts || len(blobs) != restorePrompts {
		t.Fatalf("the first repository recorded %d resources with %d distinct outputs, want %d", len(want.Resources), len(blobs), restorePrompts)
	}
	k := &killer{}
	proxy := startProxy(t, s.Endpoint, k.wrap)
	billed := e.stats(t)

	points := restorePoints()
	hits := map[string]int{}
	for round, first := range points {
		b := newProject(t, "", e)
		writeRestorePrompts(b, restorePrompts)
		withRemote(b, s, url)
		b.env = append(b.env, "VOXFORM_CACHE_ENDPOINT=http://"+proxy) // the last one counts
		kills := 0
		for attempt := range killsPerRound {
			point := first
			if attempt > 0 {
				point = points[rnd.IntN(len(points))]
			}
			killed, _ := b.applyKilledAt(k, point, 1+rnd.IntN(point.most))
			if !killed {
				if attempt == 0 {
					t.Fatalf("round %d: a fresh apply finished without reaching %s", round, point.phase)
				}
				break // it finished first
			}
			kills++
			hits[point.phase]++
			if attempt == 0 {
				t.Logf("round %d: killed at %s, %d files in build", round, point.phase, len(b.filesUnder("build")))
			}
		}
		converge(t, b, 3)
		t.Logf("round %d (%s): %d kills", round, first.phase, kills)
		assertNoTempsIn(t, b.dir, envValue(b, "XDG_CACHE_HOME"))
		st := checkSomeOutputs(t, b, len(want.outputs()), func() bool { return false })
		for addr, r := range st.Resources {
			w := want.Resources[addr]
			switch {
			case w == nil:
				t.Fatalf("round %d: %s is not a resource of the first repository", round, addr)
			case r.BilledCharacters != 0:
				t.Errorf("round %d: %s records %d billed characters, want 0 (restored)", round, addr, r.BilledCharacters)
			case len(r.Outputs) != 1 || len(w.Outputs) != 1 || r.Outputs[0] != w.Outputs[0]:
				t.Fatalf("round %d: %s records %+v, want %+v", round, addr, r.Outputs, w.Outputs)
			}
		}
		if len(st.Resources) != len(want.Resources) {
			t.Fatalf("round %d: the state records %d resources, want %d", round, len(st.Resources), len(want.Resources))
		}
		sameOutputs(t, a, b, want.outputs())
		b.verify()
	}
	if now := e.stats(t); now.calls() != billed.calls() || now.Syntheses != billed.Syntheses || now.BilledCharacters != billed.BilledCharacters {
		t.Errorf("the restores called the service: %d calls, %d syntheses, %d characters billed",
			now.calls()-billed.calls(), now.Syntheses-billed.Syntheses, now.BilledCharacters-billed.BilledCharacters)
	}
	t.Logf("kills per point %v", hits)
	for _, p := range points {
		if hits[p.phase] == 0 {
			t.Errorf("no kill landed at %s", p.phase)
		}
	}
}

// assertNoTempsIn proves no temporary file is left below dirs. (Not
// assertNoTemps: the test's directory holds MinIO's data too, which MinIO
// changes as it runs.)
func assertNoTempsIn(t testing.TB, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.Contains(d.Name(), ".voxform-tmp-") {
				return fmt.Errorf("temporary file left behind: %s", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// envValue is the value of the variable name in p's environment (the
// last, as a process sees it).
func envValue(p *project, name string) string {
	v := ""
	for _, kv := range p.env {
		if s, ok := strings.CutPrefix(kv, name+"="); ok {
			v = s
		}
	}
	return v
}

// restorePrompts is how many syntheses TestKill9DuringRestore restores.
const restorePrompts = 40

// writeRestorePrompts writes a manifest of n syntheses from a CSV, each of
// another text.
func writeRestorePrompts(p *project, n int) {
	p.t.Helper()
	words := []string{"amber", "basil", "cedar", "delta", "ember", "fable", "gamma", "haven"}
	var csv strings.Builder
	csv.WriteString("key,text\n")
	for i := range n {
		fmt.Fprintf(&csv, "p%02d,Please hold for %s %s.\n", i, words[i%8], words[i/8%8])
	}
	p.writeFile("prompts.csv", csv.String())
	p.writeFile("voxform.yaml", `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  prompt:
    for_each: prompts.csv
    voice: n
    text: "${each.value.text}"
    output: "build/${each.key}.wav"
`)
}

// restorePoints are the moments of a restore from the remote that
// TestKill9DuringRestore aims at, each at least once: MinIO's requests as
// the proxy sees them (path-style: /bucket/team/speech/v1/...).
func restorePoints() []*killPoint {
	path := regexp.MustCompile
	return []*killPoint{
		{"an entry read", "GET", path(`/v1/entries/[0-9a-f]{2}/[0-9a-f]{64}\.json$`), answered, restorePrompts},
		{"a blob download mid-body", "GET", path(`/v1/blobs/[0-9a-f]{2}/[0-9a-f]{64}$`), midResponse, restorePrompts},
		{"a blob downloaded, restores copying", "GET", path(`/v1/blobs/[0-9a-f]{2}/[0-9a-f]{64}$`), answered, restorePrompts},
	}
}

// startProxy serves a reverse proxy to the S3 server at endpoint behind
// wrap, and returns its address. The Host header goes through unchanged, so
// that the client's signatures hold.
func startProxy(t testing.TB, endpoint string, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	rp := httputil.NewSingleHostReverseProxy(&neturl.URL{Scheme: "http", Host: endpoint})
	rp.ErrorLog = log.New(io.Discard, "", 0) // a killed client cuts the copy short
	srv := httptest.NewServer(wrap(rp))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}
