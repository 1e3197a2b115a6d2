package manifest_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
)

// TestTranscriptionInputsStayInside: a transcription input whose real path
// leaves the manifest directory through a symbolic link is refused at the
// inputs entry that matched it, naming the input and why, unless the block
// names the directory it really lies in under input_dirs; a link to a
// procfs file (/proc/self/environ, the process environment) or a named
// pipe among the recordings is refused as not a regular file, even in a
// directory named so. A link used to be followed wherever it led.
func TestTranscriptionInputsStayInside(t *testing.T) {
	const outside = "leads outside the manifest directory through a symbolic link"
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	writeWAV(t, filepath.Join(shared, "call.wav"), 16000, 2*time.Second)
	writeWAV(t, filepath.Join(base, "private/other.wav"), 16000, 2*time.Second)
	symlink(t, shared, filepath.Join(base, "shared-link"))
	block := func(inputs, inputDirs string) string {
		s := "version: 1\ntranscriptions:\n  calls:\n    inputs: " + inputs + "\n"
		if inputDirs != "" {
			s += "    input_dirs: " + inputDirs + "\n"
		}
		return s + "    api: rest\n    language_code: hi-IN\n    output_dir: out\n"
	}
	for _, c := range []struct {
		name, inputs, inputDirs string
		links                   map[string]string // link in the project -> target
		want                    string            // the one error, after "voxform.yaml:4:"; "" for none
	}{
		{name: "environ", inputs: "[recordings/x.wav]", links: map[string]string{"recordings/x.wav": "/proc/self/environ"},
			want: `14: error: input "recordings/x.wav" ` + outside},
		{name: "environ globbed", inputs: "[\"recordings/*.wav\"]", links: map[string]string{"recordings/x.wav": "/proc/self/environ"},
			want: `15: error: input "recordings/x.wav" ` + outside},
		{name: "environ with /proc named", inputs: "[recordings/x.wav]", inputDirs: "[/proc]", links: map[string]string{"recordings/x.wav": "/proc/self/environ"},
			want: `14: error: input "recordings/x.wav" is a file of the kernel's proc file system, not a regular file`},
		{name: "file outside", inputs: "[recordings/x.wav]", links: map[string]string{"recordings/x.wav": filepath.Join(base, "private/other.wav")},
			want: `14: error: input "recordings/x.wav" ` + outside},
		{name: "file outside, another dir named", inputs: "[recordings/x.wav]", inputDirs: "[" + shared + "]",
			links: map[string]string{"recordings/x.wav": filepath.Join(base, "private/other.wav")},
			want:  `14: error: input "recordings/x.wav" ` + outside},
		{name: "file outside, its dir named", inputs: "[recordings/x.wav]", inputDirs: "[" + shared + "]",
			links: map[string]string{"recordings/x.wav": filepath.Join(shared, "call.wav")}},
		{name: "dir outside", inputs: "[\"recordings/*.wav\"]", links: map[string]string{"recordings": shared},
			want: `15: error: input pattern "recordings/*.wav": recordings ` + outside},
		{name: "dir outside, named", inputs: "[\"recordings/*.wav\"]", inputDirs: shared, links: map[string]string{"recordings": shared}},
		{name: "dir outside, named through a link", inputs: "[\"recordings/**/*.wav\"]", inputDirs: filepath.Join(base, "shared-link"),
			links: map[string]string{"recordings": shared}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "project")
			writeFile(t, dir, "voxform.yaml", block(c.inputs, c.inputDirs))
			for link, target := range c.links {
				symlink(t, target, filepath.Join(dir, link))
			}
			got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{NoProbe: true}))
			if c.want == "" {
				if len(got) != 0 {
					t.Errorf("errors %q; want none", got)
				}
				return
			}
			if want := "voxform.yaml:4:" + c.want; len(got) != 1 || !strings.HasPrefix(got[0], want) {
				t.Errorf("errors %q; want one starting %q", got, want)
			} else if strings.Contains(c.want, outside) && (!strings.Contains(got[0], "\nhint: ") || !strings.Contains(got[0], "input_dirs:")) {
				t.Errorf("error %q has no hint naming input_dirs:", got[0])
			}
		})
	}
}

// TestTranscriptionInputNotRegular: a named pipe among the recordings is
// refused at its inputs entry without being read (validate does not wait
// on it).
func TestTranscriptionInputNotRegular(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", "version: 1\ntranscriptions:\n  calls: { inputs: [\"recordings/*.wav\"], api: rest, language_code: hi-IN, output_dir: out }\n")
	writeWAV(t, filepath.Join(dir, "recordings/a.wav"), 16000, time.Second)
	if err := syscall.Mkfifo(filepath.Join(dir, "recordings/p.wav"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{}))
	want := `voxform.yaml:3:22: error: input "recordings/p.wav" is a named pipe or socket, not a regular file`
	if len(got) != 1 || got[0] != want {
		t.Errorf("errors %q; want [%q]", got, want)
	}
}

// TestInputDirsChecked: input_dirs entries are absolute directories that
// exist, each refused at its position otherwise.
func TestInputDirsChecked(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "a.wav"), 16000, time.Second)
	writeFile(t, dir, "voxform.yaml", fmt.Sprintf("version: 1\ntranscriptions:\n  calls:\n    inputs: [a.wav]\n    input_dirs: [shared, %s]\n"+
		"    api: rest\n    language_code: hi-IN\n    output_dir: out\n", filepath.Join(dir, "missing")))
	got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{}))
	want := []string{
		`voxform.yaml:5:18: error: input_dirs entry "shared" is not an absolute path`,
		fmt.Sprintf(`voxform.yaml:5:26: error: input_dirs entry %q does not exist or is not a directory`, filepath.Join(dir, "missing")),
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], want[0]) || !strings.HasPrefix(got[1], want[1]) {
		t.Errorf("errors %q; want %q", got, want)
	}
}
