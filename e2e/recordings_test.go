package e2e_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// recordingsManifest is a REST transcription of recordings/*.wav, with
// input_dirs when dirs is not empty.
func recordingsManifest(dirs string) string {
	s := "version: 1\ntranscriptions:\n  calls:\n    inputs: [\"recordings/*.wav\"]\n"
	if dirs != "" {
		s += "    input_dirs: [" + dirs + "]\n"
	}
	return s + "    api: rest\n    language_code: en-IN\n    output_dir: build/calls\n    formats: [json, txt]\n"
}

// A recording a contributor links to /proc/self/environ (the voxform
// process's environment, the API key in it) is refused at the inputs
// field by validate, plan and apply: nothing is sent to the service and
// the key appears in no output and no file.
func TestRecordingLinkToEnvironRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", recordingsManifest(""))
	p.writeFile("recordings/a.wav", string(speechLikeWAV(t, 240)))
	if err := os.Symlink("/proc/self/environ", p.path("recordings/x.wav")); err != nil {
		t.Fatal(err)
	}
	s := &secretScan{t: t}
	const refused = `main.yaml:4:15: error: input "recordings/x.wav" leads outside the manifest directory through a symbolic link`
	const refusedJSON = `"message":"input \"recordings/x.wav\" leads outside the manifest directory through a symbolic link","file":"main.yaml","line":4,"col":15`
	for _, args := range [][]string{{"validate"}, {"plan"}, {"plan", "-json"}, {"apply", "-auto-approve"}} {
		want := refused
		if args[len(args)-1] == "-json" {
			want = refusedJSON
		}
		if r := s.run(p, args...); r.code == 0 || !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("want the link refused with %q; got %s", want, r)
		}
	}
	if n := e.stats(t).calls(); n != 0 {
		t.Errorf("%d requests reached the service; want none", n)
	}
	if p.exists("build") {
		t.Errorf("apply wrote outputs: %v", p.filesUnder("build"))
	}
	os.Remove(p.path("recordings/x.wav")) // the scan reads files, and a link would read this process's environment
	s.check(p.dir, testKey)
}

// A directory of recordings outside the project, reached through a
// symbolic link, is read only when the block names it under input_dirs:
// without, validate, plan and apply refuse the pattern and nothing is
// sent; with, its recordings are transcribed. A link to a file outside
// that directory stays refused.
func TestRecordingsOutsideNamedExplicitly(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	shared := filepath.Join(t.TempDir(), "recordings")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "call.wav"), speechLikeWAV(t, 230), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, p.path("recordings")); err != nil {
		t.Fatal(err)
	}
	p.writeFile("main.yaml", recordingsManifest(""))
	const refused = `main.yaml:4:15: error: input pattern "recordings/*.wav": recordings leads outside the manifest directory through a symbolic link`
	for _, args := range [][]string{{"validate"}, {"plan"}, {"apply", "-auto-approve"}} {
		if r := p.run(args...); r.code == 0 || !strings.Contains(r.stderr, refused) || !strings.Contains(r.stderr, "input_dirs") {
			t.Errorf("want the pattern refused with %q and a hint naming input_dirs; got %s", refused, r)
		}
	}
	if n := e.stats(t).calls(); n != 0 {
		t.Fatalf("%d requests reached the service; want none", n)
	}
	p.writeFile("main.yaml", recordingsManifest(shared))
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if got := p.filesUnder("build/calls"); strings.Join(got, " ") != "build/calls/call.json build/calls/call.txt" {
		t.Errorf("outputs %v; want the transcript of call.wav", got)
	}
	if n := e.stats(t).calls(); n != 1 {
		t.Errorf("%d requests; want the one recognition of call.wav", n)
	}
	private := filepath.Join(t.TempDir(), "other.wav")
	if err := os.WriteFile(private, speechLikeWAV(t, 250), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, filepath.Join(shared, "private.wav")); err != nil {
		t.Fatal(err)
	}
	const elsewhere = `main.yaml:4:15: error: input "recordings/private.wav" leads outside the manifest directory through a symbolic link`
	if r := p.apply(); r.code == 0 || !strings.Contains(r.stderr, elsewhere) {
		t.Errorf("want the link out of the named directory refused with %q; got %s", elsewhere, r)
	}
	if n := e.stats(t).calls(); n != 1 {
		t.Errorf("%d requests; want no more", n)
	}
}

// A recording swapped for a link out of the project after validate, while
// apply runs, is refused where apply opens it for the upload: the first
// recording's request is answered after both are swapped, and the second is
// never sent.
func TestRecordingSwappedDuringApplyRefused(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	const secret = "outside-file-7c41e2"
	private := filepath.Join(t.TempDir(), "private.wav")
	if err := os.WriteFile(private, append(speechLikeWAV(t, 260), secret...), 0o644); err != nil {
		t.Fatal(err)
	}
	var p *project
	var once sync.Once
	var leaked bool
	var mu sync.Mutex
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body) // the upload read through before the swap
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			leaked = leaked || bytes.Contains(body, []byte(secret))
			mu.Unlock()
			if !bytes.Contains(body, []byte("RIFF")) {
				next.ServeHTTP(w, r) // not an upload
				return
			}
			once.Do(func() {
				for _, name := range []string{"a.wav", "b.wav"} {
					os.Remove(p.path("recordings/" + name))
					os.Symlink(private, p.path("recordings/"+name))
				}
			})
			next.ServeHTTP(w, r)
		})
	}
	e := startEmulatorBehind(t, emulator.Options{}, wrap)
	p = newProject(t, "", e)
	p.writeFile("main.yaml", recordingsManifest(""))
	p.writeFile("recordings/a.wav", string(speechLikeWAV(t, 240)))
	p.writeFile("recordings/b.wav", string(speechLikeWAV(t, 250)))
	r := p.apply("-parallelism", "1")
	if r.code == 0 || !strings.Contains(r.stdout, `: open input recordings/`) || !strings.Contains(r.stdout, "leads outside the manifest directory through a symbolic link") {
		t.Errorf("want the swapped recording refused; got %s", r)
	}
	if n := e.stats(t).calls(); n != 1 {
		t.Errorf("%d requests; want only the first recording's", n)
	}
	if leaked {
		t.Error("the file outside the project was uploaded")
	}
}
