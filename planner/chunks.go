package planner

import (
	"fmt"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
)

// DesiredChunk is one request of a synthesis whose text is longer than a
// request takes (narration.Split): its own fingerprint, so that it is
// synthesized, cached and recorded on its own, and an edit re-synthesizes
// only the chunks whose text changed.
type DesiredChunk struct {
	// Text is what the request sends: the audio tag repeated from before
	// the chunk (tts-v3.0), then the chunk's text.
	Text string `json:"text"`
	// Characters is what Text bills.
	Characters int64 `json:"characters"`
	// Fingerprint is that of the synthesis of Text alone with the same
	// voice, model and audio format: a chunk and a synthesis of the same
	// text share their cache entry.
	Fingerprint string `json:"fingerprint"`
	// WrittenStart and WrittenEnd delimit what the chunk speaks in the
	// synthesis's text as written (manifest.Synthesis.Text, before the
	// lexicon; its white space at the ends left out): the text of its
	// cue. A term whose spoken form a cut falls in belongs to the chunk
	// after the cut.
	WrittenStart int `json:"written_start"`
	WrittenEnd   int `json:"written_end"`
}

// SentText is the text a synthesis sends: its text with its lexicon
// applied (narration.Lexicon.Apply), before it is split. Its billed
// characters, chunks and fingerprints are those of this text.
func SentText(s *manifest.Synthesis) string {
	text, _ := sentText(s)
	return text
}

// sentText is SentText with the replacements the lexicon made.
func sentText(s *manifest.Synthesis) (string, []narration.Applied) {
	sd := s.Details()
	if sd.Lexicon == nil {
		return s.Text, nil
	}
	return sd.Lexicon.Apply(s.Text, s.Language)
}

// split cuts text into chunks of at most max characters when it is
// longer (narration.Split; tags repeats for a model that renders audio
// tags). Each chunk's fingerprint is that of canonical with the chunk's
// text; the request req gains the ordered list of them, so that any chunk's
// change changes the resource's fingerprint, and the billed characters
// are the chunks' (the repeated tags included). applied maps the text
// back to the text as written (narration.OriginalOffset).
func (d *Desired) split(req map[string]any, text string, applied []narration.Applied, max int, tags bool, canonical *contract.SynthesisRequest, emb map[string]any) error {
	if max <= 0 || d.Characters <= int64(max) { // d.Characters counts text's code points
		return nil
	}
	parts := narration.Split(text, max, narration.Options{RendersTags: tags})
	if len(parts) < 2 {
		return nil
	}
	fps := make([]any, len(parts))
	chunks := make([]DesiredChunk, len(parts))
	d.Characters = 0
	for i, p := range parts {
		w := *canonical
		w.Text = p.Text
		fp, err := Fingerprint(string(manifest.KindSynthesis), synthesisRequest(&w, emb))
		if err != nil {
			return err
		}
		chunks[i] = DesiredChunk{Text: p.Text, Characters: int64(p.Characters), Fingerprint: fp,
			WrittenStart: narration.OriginalOffset(applied, p.TextStart), WrittenEnd: narration.OriginalOffset(applied, p.TextEnd)}
		d.Characters += int64(p.Characters)
		fps[i] = fp
	}
	d.Edit().Chunks = chunks
	req["chunks"] = fps
	return nil
}

// ChunkWork is what the action of a chunked synthesis does with its
// chunks: of Total, Synthesize are neither recorded by the state nor in
// the output cache, and are billed; the others are joined from the cache.
type ChunkWork struct {
	Total      int `json:"total"`
	Synthesize int `json:"synthesize"`
	// Fresh is set when every chunk is synthesized again, none taken
	// from the cache (-replace asks for the work again).
	Fresh bool `json:"fresh,omitempty"`
}

// Reason is the chunk part of an action's reasons: "31 chunks" when all
// are synthesized, "2 of 31 chunks" otherwise.
func (w *ChunkWork) Reason() string {
	if w.Synthesize == w.Total {
		return fmt.Sprintf("%d chunks", w.Total)
	}
	return fmt.Sprintf("%d of %d chunks", w.Synthesize, w.Total)
}

// chunkWork prices the creates, replaces and paid repairs of chunked
// syntheses by the chunks they synthesize: those that the store an apply
// takes them from (the output cache, else the chunk store: Cached, else
// Chunks; asked once, for all of them) does not hold. That the state
// records a chunk does not make it free: the store may have lost it (cache
// gc, a cleared cache), and the apply would pay for it again. Only with
// neither lookup are the chunks the state records taken to be kept. Their
// cost is the chunks' characters.
func (c *computer) chunkWork() error {
	var acts []*Action
	var ask []string
	seen := map[string]bool{}
	for _, a := range c.actions {
		if a.Desired == nil || len(a.Desired.Details().Chunks) == 0 || a.Details().Refused != "" {
			continue
		}
		switch {
		case a.Type == Create, a.Type == Replace, a.Type == Repair && a.Details().RenderFrom == "":
		default:
			continue
		}
		acts = append(acts, a)
		for _, ch := range a.Desired.Details().Chunks {
			if !seen[ch.Fingerprint] {
				seen[ch.Fingerprint] = true
				ask = append(ask, ch.Fingerprint)
			}
		}
	}
	if len(acts) == 0 {
		return nil
	}
	lookup := c.in.Cached
	if lookup == nil {
		lookup = c.in.Chunks
	}
	var cached map[string]string
	if lookup != nil {
		var err error
		if cached, err = lookup(ask); err != nil {
			return fmt.Errorf("look up the cache: %w", err)
		}
	}
	for _, a := range acts {
		w := &ChunkWork{Total: len(a.Desired.Details().Chunks), Fresh: c.replace[a.Address]}
		known := map[string]bool{}
		if a.Prior != nil && !w.Fresh && lookup == nil {
			for _, r := range a.Prior.Details().Chunks {
				known[r.Fingerprint] = true
			}
		}
		var chars int64
		for _, ch := range a.Desired.Details().Chunks {
			if !w.Fresh && (known[ch.Fingerprint] || cached[ch.Fingerprint] != "") {
				continue
			}
			w.Synthesize++
			chars += ch.Characters
		}
		a.Chunks = w
		a.Cost.Characters = chars
		a.Reasons = append(a.Reasons, w.Reason())
	}
	return nil
}
