package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// validate asks the one loopback rule apply asks: a name that starts with
// "127." is not an address, and localhost is loopback for base URLs, input
// URLs and callback URLs alike.
func TestOneLoopbackRule(t *testing.T) {
	for _, tc := range []struct {
		base, input, callback string
		errs                  []string
	}{
		{base: "http://127.example.com", input: "https://media.example.com/a.wav", errs: []string{"service.base_url"}},
		{base: "http://localhost:8080", input: "http://localhost:8080/a.wav", callback: "http://localhost:9/hook"},
		{base: "http://127.0.0.1:8080", input: "http://127.example.com/a.wav", errs: []string{"must use https"}},
		{base: "https://api.example.com", input: "https://media.example.com/a.wav", callback: "http://127.example.com/hook", errs: []string{"callback_url"}},
	} {
		dir := t.TempDir()
		cb := ""
		if tc.callback != "" {
			cb = "\n    callback_url: " + tc.callback
		}
		os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(`version: 1
service:
  base_url: `+tc.base+`
transcriptions:
  calls:
    urls: ["`+tc.input+`"]
    api: batch
    language_code: hi-IN
    output_dir: build`+cb+"\n"), 0o644)
		_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		var errs []string
		for _, d := range ds {
			if d.Severity == manifest.SeverityError {
				errs = append(errs, d.Message)
			}
		}
		if len(errs) != len(tc.errs) {
			t.Errorf("%+v: errors %q, want %d", tc, errs, len(tc.errs))
			continue
		}
		for i, want := range tc.errs {
			if !strings.Contains(errs[i], want) {
				t.Errorf("%+v: error %q, want one about %s", tc, errs[i], want)
			}
		}
	}
}
