package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

const catalogUsage = `
Usage: voxform catalog [-json] [-builtin] [-profile live|documented]

Prints what the service takes: synthesis models with their voices (by
language, where the service says which language a voice was made for) and
languages, audio tags, containers, encodings and their aliases, sample
rates, bitrates, recognition languages per API, and limits. When the
working directory holds a manifest, its profile and its catalog: block
are used.

Flags:
`

// catalogOptions are the flags of catalog.
type catalogOptions struct {
	json    bool
	builtin bool
	profile string
}

func init() {
	register(&command{name: "catalog", synopsis: "list models, voices, languages, tags, formats and limits", run: runCatalogCmd})
}

func runCatalogCmd(ctx context.Context, env *Env, args []string) error {
	var o catalogOptions
	fs := newFlagSet(env, "catalog", catalogUsage)
	fs.BoolVar(&o.json, "json", false, "print the catalog as one JSON object")
	fs.BoolVar(&o.builtin, "builtin", false, "ignore the manifest (its profile and catalog: block)")
	fs.StringVar(&o.profile, "profile", "", "the catalog of `PROFILE`: live or documented (default: the manifest's, else live)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("catalog takes no arguments, got %q", fs.Arg(0))
	}
	return runCatalog(env, o)
}

// runCatalog prints the built-in catalog, extended by the manifest of the
// working directory when there is one that loads.
func runCatalog(env *Env, o catalogOptions) error {
	if _, err := contract.ParseProfile(o.profile); err != nil {
		return usageErrorf("catalog -profile: %v", err)
	}
	var m *manifest.Manifest
	if !o.builtin {
		if names, err := manifest.ManifestFiles(env.Dir); err == nil && len(names) > 0 {
			var ds manifest.Diagnostics
			m, ds = manifest.Load(env.Dir, manifest.LoadOptions{NoProbe: true}, schema.Validator{})
			if ds.HasErrors() {
				return withHint(fmt.Errorf("the manifest has errors; its catalog: block is not shown"),
					"run 'voxform validate', or 'voxform catalog -builtin'")
			}
		}
	}
	if m == nil {
		m = &manifest.Manifest{}
	}
	if o.profile != "" {
		m.Service.Profile = contract.Profile(o.profile)
	}
	cat := schema.CatalogFor(m)
	profile, _ := contract.ParseProfile(string(m.Service.Profile))
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(cat); err != nil {
			return fmt.Errorf("write catalog: %w", err)
		}
		return nil
	}
	writeCatalog(env.Stdout, cat, profile)
	return nil
}

// writeCatalog renders the catalog for people.
func writeCatalog(out io.Writer, c *contract.Catalog, p contract.Profile) {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	defer w.Flush()
	fmt.Fprintf(w, "Profile %s", p)
	if p == contract.ProfileLive {
		fmt.Fprintf(w, " (the live service at %s; 'voxform catalog -profile documented' for the documents)", contract.LiveBaseURL)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\nSynthesis models")
	fmt.Fprintln(w, "  MODEL\tVOICES\tLANGUAGES\tSPEED\tTAGS\tNOTE")
	for _, m := range c.Models {
		name := m.Name
		if wire := p.WireModel(m.Name); wire != m.Name {
			name += " (" + wire + ")"
		}
		voices := strings.Join(m.Voices, ", ")
		if m.NeedsEmbedding {
			voices = "(speaker embedding)"
		} else if len(m.VoiceLanguages) > 0 {
			voices = fmt.Sprintf("%d voices: by language below", len(m.Voices))
		}
		langs := strings.Join(m.Languages, ", ")
		if langs == "" {
			langs = "-"
		} else if m.LanguageRequired {
			langs += " (required)"
		} else if m.DefaultLanguage != "" {
			langs += " (default " + m.DefaultLanguage + ")"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\n", name, voices, langs, yesNo(m.Speed), yesNo(m.RendersTags), m.Note)
	}
	for _, m := range c.Models {
		writeVoicesByLanguage(w, m)
	}
	fmt.Fprintf(w, "\nAudio tags (tts-v3.0; case-sensitive, no closing tag)\n  <%s>\n", strings.Join(c.Tags, ">, <"))
	fmt.Fprintln(w, "\nContainers")
	fmt.Fprintln(w, "  CONTAINER\tENCODING\tOUTPUT\tCONTENT-TYPE\tSAMPLE RATE\tWEBSOCKET")
	for _, k := range c.Containers {
		rate := fmt.Sprintf("%d-%d", c.MinSampleRate, c.MaxSampleRate)
		if k.ForcedRate != 0 {
			rate = fmt.Sprintf("forced to %d", k.ForcedRate)
		}
		enc := k.Encoding
		if enc == "" {
			enc = "-"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\n", k.Name, enc, k.Output, k.ContentType, rate, yesNo(k.Raw))
	}
	fmt.Fprintf(w, "\nEncodings\n  %s\n", strings.Join(c.Encodings, ", "))
	fmt.Fprintln(w, "\nEncoding aliases")
	for _, a := range c.Aliases {
		fmt.Fprintf(w, "  container %s + encoding %s\t= container %s\n", a.Container, a.Encoding, a.Equivalent)
	}
	fmt.Fprintf(w, "\nSample rates\n  %s (default %d)\n", joinInts(c.SampleRates), c.Defaults.SampleRate)
	fmt.Fprintf(w, "\nBitrates (mp3 only)\n  %s (default %s)\n", strings.Join(c.Bitrates, ", "), c.Defaults.Bitrate)
	fmt.Fprintf(w, "\nTransports\n  %s\n", strings.Join(c.Transports, ", "))
	writeRecognition(w, c)
	fmt.Fprintln(w, "\nLimits")
	for _, l := range c.Limits {
		fmt.Fprintf(w, "  %s\t%s\n", l.Item, l.Value)
	}
}

// writeVoicesByLanguage lists a model's voices under the language each
// was made for, where the catalog knows it.
func writeVoicesByLanguage(w io.Writer, m *contract.Model) {
	if len(m.VoiceLanguages) == 0 {
		return
	}
	fmt.Fprintf(w, "\nVoices of %s by language\n", m.Name)
	var langs []string
	for _, v := range m.Voices {
		if l := m.VoiceLanguages[v]; l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	for _, l := range langs {
		fmt.Fprintf(w, "  %s\t%s\n", l, strings.Join(m.VoicesOf(l), ", "))
	}
	if other := m.VoicesOf(""); len(other) > 0 {
		fmt.Fprintf(w, "  (not known)\t%s\n", strings.Join(other, ", "))
	}
}

func writeRecognition(w io.Writer, c *contract.Catalog) {
	fmt.Fprintln(w, "\nRecognition APIs")
	fmt.Fprintln(w, "  API\tLANGUAGES\tCODES\tITN\tDIARIZATION\tINPUTS\tOUTPUTS")
	for _, name := range []string{manifest.APIREST, manifest.APIRealtime, manifest.APIBatchLegacy, manifest.APIBatch} {
		a := c.Recognition[name]
		fmt.Fprintf(w, "  %s\t%s\t%d\t%s\t%s\t%s\t%s\n", a.Name, strings.Join(a.Languages, ", "), a.MaxLanguages,
			yesNo(a.ITN), yesNo(a.Diarization), strings.Join(a.InputFormats, ", "), strings.Join(a.OutputFormats, ", "))
	}
	fmt.Fprintf(w, "  batch model: %s\n", strings.Join(c.Recognition[manifest.APIBatch].Models, ", "))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, n := range l {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
