package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

// maxListed is how many names a message lists: a catalog: block can make
// a list of a thousand.
const maxListed = 20

// listNames joins names for a message: all of them, or the first
// maxListed and how many more.
func listNames(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// unknownName reports a value outside a list, with "did you mean".
func (c *checker) unknownName(pos manifest.Pos, what, val string, allowed []string, hint string) {
	d := c.ds.Errorf(pos, "%s %q is not one of %s", what, val, listNames(allowed))
	if sg := c.sg.Suggest(val, allowed); sg != "" {
		d.WithHint("did you mean %q?", sg)
	} else if hint != "" {
		d.WithHint("%s", hint)
	}
}

// conformance: TTS-001, TTS-007, TTS-046, TTS-047, TTS-048, TTS-049, VC-005, VC-006
func (c *checker) checkVoices() {
	embeddings := map[string]bool{}
	for _, e := range c.m.Embeddings {
		embeddings[e.Name] = true
	}
	for _, v := range c.m.Voices {
		f := func(n string) manifest.Pos { return manifest.FieldPos(v.Fields, n, v.Pos) }
		model := c.cat.Model(v.Model)
		if model == nil {
			var names []string
			for _, n := range c.cat.ModelNames() {
				names = append(names, c.modelName(n))
			}
			c.unknownName(f("model"), "model", v.Model, names, "declare new models under catalog.models")
			continue
		}
		if model.NeedsEmbedding {
			c.checkCloneVoice(v, embeddings)
		} else {
			name := c.modelName(v.Model)
			if _, set := v.Fields["embedding"]; set {
				c.ds.Errorf(f("embedding"), "embedding is only for model vc-v1, not %s", name)
			}
			if _, set := v.Fields["embedding_file"]; set {
				c.ds.Errorf(f("embedding_file"), "embedding_file is only for model vc-v1, not %s", name)
			}
			switch {
			case v.Voice == "" && model.VoiceRequired:
				d := c.ds.Errorf(v.Pos, "voice %q needs a voice: name for model %s", v.Name, name)
				if made := model.VoicesOf(v.Language); len(made) > 0 {
					d.WithHint("voices of %s made for %s: %s", name, v.Language, listNames(made))
				} else {
					d.WithHint("voices of %s: %s", name, listNames(model.Voices))
				}
			case v.Voice != "" && !slices.Contains(model.Voices, v.Voice):
				c.unknownName(f("voice"), "voice name for "+name, v.Voice, model.Voices,
					fmt.Sprintf("if the service has added it, declare it under catalog.voices.%s", name))
			}
		}
		if v.Language != "" {
			c.checkLanguage(model, v.Language, f("language"))
		}
		if v.Speed != nil {
			c.checkSpeed(model, *v.Speed, f("speed"))
		}
	}
}

// checkCloneVoice checks a vc-v1 voice: an embedding or an embedding
// file, no voice name.
func (c *checker) checkCloneVoice(v *manifest.Voice, embeddings map[string]bool) {
	f := func(n string) manifest.Pos { return manifest.FieldPos(v.Fields, n, v.Pos) }
	if _, set := v.Fields["voice"]; set {
		c.ds.Errorf(f("voice"), "model vc-v1 sends no voice name, but voice is %q", v.Voice).
			WithHint("remove voice:; the cloned voice comes from the embedding")
	}
	switch {
	case v.Embedding == "" && v.EmbeddingFile == "":
		c.ds.Errorf(v.Pos, "voice %q with model vc-v1 needs an embedding or an embedding_file", v.Name).
			WithHint("name an embeddings: entry, or the path of an embedding JSON file")
	case v.Embedding != "" && v.EmbeddingFile != "":
		c.ds.Errorf(f("embedding_file"), "voice %q sets both embedding and embedding_file; set one", v.Name)
	case v.Embedding != "" && !embeddings[v.Embedding]:
		d := c.ds.Errorf(f("embedding"), "voice %q refers to unknown embedding %q", v.Name, v.Embedding)
		if sg := c.sg.Suggest(v.Embedding, c.embeddingNames(embeddings)); sg != "" {
			d.WithHint("did you mean %q?", sg)
		} else {
			d.WithHint("declare it under embeddings:")
		}
	case v.EmbeddingFile != "":
		c.checkEmbeddingFile(v)
	}
}

// embeddingNames lists the embeddings, sorted, once.
func (c *checker) embeddingNames(embeddings map[string]bool) []string {
	if c.embeddings == nil {
		c.embeddings = sortedKeys(embeddings)
	}
	return c.embeddings
}

// checkLanguage checks a language against a model's list.
// conformance: TTS-015, TTS-017
func (c *checker) checkLanguage(model *contract.Model, lang string, pos manifest.Pos) {
	if slices.Contains(model.Languages, lang) {
		return
	}
	if len(model.Languages) == 0 {
		// Documented as taking none: harmless, so not an error; it is not sent.
		c.ds.Warnf(pos, "model %s takes no language; language %q is not sent", c.modelName(model.Name), lang).
			WithHint("remove language:")
		return
	}
	name := c.modelName(model.Name)
	c.unknownName(pos, "language for "+name, lang, model.Languages,
		fmt.Sprintf("to allow another value, declare it under catalog.languages.%s", name))
}

// checkSpeed checks a speed: tts-v2.5 and later, 0.85 to 1.15.
// conformance: TTS-010, TTS-011, TTS-012, TTS-013, TTS-014
func (c *checker) checkSpeed(model *contract.Model, speed float64, pos manifest.Pos) {
	if !model.Speed {
		c.ds.Errorf(pos, "speed is not accepted by model %s (only %s and later)", c.modelName(model.Name), c.modelName("tts-v2.5")).
			WithHint("remove speed:, or use %s or tts-v3.0", c.modelName("tts-v2.5"))
		return
	}
	if speed < c.cat.SpeedMin || speed > c.cat.SpeedMax {
		c.ds.Errorf(pos, "speed %g is out of range %g to %g", speed, c.cat.SpeedMin, c.cat.SpeedMax).
			WithHint("or use slow (%g), medium (%.1f) or fast (%g)", contract.SpeedNames["slow"], contract.SpeedNames["medium"], contract.SpeedNames["fast"])
	}
}
