package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
)

// TestListenSchemaDefaults: the defaults the JSON schema states for an
// editor are the ones a check uses (listen.DefaultThresholds,
// manifest.DefaultSeams), and regenerate's maximum is MaxRegenerate.
func TestListenSchemaDefaults(t *testing.T) {
	src, err := os.ReadFile("manifest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Listen struct {
				Properties map[string]struct {
					Description string                     `json:"description"`
					Maximum     *float64                   `json:"maximum"`
					Properties  map[string]json.RawMessage `json:"properties"`
				} `json:"properties"`
			} `json:"listen"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	d, s := listen.DefaultThresholds(), manifest.DefaultSeams()
	props := doc.Defs.Listen.Properties
	for name, v := range map[string]any{"max_cer": d.MaxCER, "max_wer": d.MaxWER, "max_run": d.MaxRun,
		"max_missing_tail": d.MaxMissingTail, "noise_words": d.NoiseWords, "regenerate": 0} {
		if want := fmt.Sprintf("(default %v)", v); !strings.Contains(props[name].Description, want) {
			t.Errorf("$defs/listen %s: description %q does not say %s", name, props[name].Description, want)
		}
	}
	if m := props["regenerate"].Maximum; m == nil || *m != manifest.MaxRegenerate {
		t.Errorf("$defs/listen regenerate: maximum %v, want %d", m, manifest.MaxRegenerate)
	}
	seams := props["seams"].Properties
	for name, want := range map[string]string{"max_step": fmt.Sprintf("(default %v)", s.MaxStep),
		"max_gap": fmt.Sprintf("(default %v,", s.MaxGap), "min_gap": fmt.Sprintf("(default %v)", s.MinGap.Seconds())} {
		if !strings.Contains(string(seams[name]), want) {
			t.Errorf("$defs/listen seams.%s: %s does not say %s", name, seams[name], want)
		}
	}
}
