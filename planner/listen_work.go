package planner

import (
	"fmt"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/state"
)

// ListenItem is one check of a synthesis: its audio sent whole (Chunk
// -1) or chunk Chunk of its split text.
type ListenItem struct {
	Chunk      int
	Text       string // what was sent, audio tags and all
	Characters int64
	// SHA256 is the audio's hash when the action keeps audio the state
	// records for it ("" when the audio is made or restored by the
	// action); Record is that audio's recorded check (nil: none).
	SHA256 string
	Record *state.Listen
	// Start is where the chunk starts in the joined audio, as recorded
	// (0 for audio sent whole).
	Start float64
}

// ListenItems lists the checks of a synthesis action with listen:, in
// order, with what the state records for the audio the action keeps.
func ListenItems(a *Action) []ListenItem {
	d := a.Desired
	keeps := a.Prior != nil && (a.Type == Check || a.Type == Move || a.Type == Restore && a.KeepsRecord())
	if len(d.Details().Chunks) == 0 {
		it := ListenItem{Chunk: -1, Text: d.Wire.Synthesis.Text, Characters: d.Characters}
		if keeps && len(a.Prior.Outputs) > 0 {
			it.SHA256, it.Record = a.Prior.Outputs[0].SHA256, a.Prior.Outputs[0].Listen
		}
		return []ListenItem{it}
	}
	var prior map[string]*state.ChunkRecord
	if a.Prior != nil && (keeps || a.Type != Restore) {
		prior = make(map[string]*state.ChunkRecord, len(a.Prior.Details().Chunks))
		for i := range a.Prior.Details().Chunks {
			prior[a.Prior.Details().Chunks[i].Fingerprint] = &a.Prior.Details().Chunks[i]
		}
	}
	fresh := a.Chunks != nil && a.Chunks.Fresh
	items := make([]ListenItem, len(d.Details().Chunks))
	for i, ch := range d.Details().Chunks {
		items[i] = ListenItem{Chunk: i, Text: ch.Text, Characters: ch.Characters}
		if r := prior[ch.Fingerprint]; r != nil && !fresh {
			items[i].SHA256, items[i].Record, items[i].Start = r.SHA256, r.Listen, r.Start
		}
	}
	return items
}

// Language is the recognition language of a's checks and how it was
// chosen (contract.ListenLanguage).
func (d *Desired) ListenLanguage() (code, how string) {
	w := d.Wire.Synthesis
	return contract.ListenLanguage(w.Language, d.Details().Listen.LanguageCode, narration.Spoken(w.Text))
}

// Recorded reports whether it holds a check made of its audio in
// language code: the record's fingerprint is that of the audio and the
// request the record names.
func (it *ListenItem) Recorded(code string) bool {
	l := it.Record
	if l == nil || it.SHA256 == "" || l.Status != "" || l.LanguageCode != code {
		return false
	}
	req, ok := NewCheckRequest(code, 0, l.Rate)
	if !ok {
		return false
	}
	req.API = l.API
	req.Format, req.Model = "", ""
	switch l.API {
	case contract.APIREST, contract.APIBatchLegacy:
		req.Format = "verbatim"
	case contract.APIBatch:
		req.Model = contract.DefaultBatchModel
	}
	return l.Fingerprint == CheckFingerprint(it.SHA256, req)
}

// listenWork prices the listening checks of every synthesis with
// listen:, and makes a Check action of each one that needs nothing but
// checks its state does not record.
func (c *computer) listenWork() {
	for _, addr := range c.listenNoops {
		d := c.byAddress()[addr]
		if was := c.pinnedAs[addr]; was != nil {
			d = was // checked as approved, never recorded under the new request
		}
		a := &Action{Address: addr, Type: Check, Desired: d, Prior: c.st.Resources[addr]}
		c.priceListen(a)
		w := a.Listen
		if w.Make == 0 {
			for _, f := range w.Failing {
				c.listenFailing = append(c.listenFailing, addr+": "+f)
			}
			continue
		}
		a.Reasons = []string{w.CheckReason()}
		if c.pinned[addr] == nil {
			c.noops-- // a pinned resource is not a no-op
		}
		c.actions = append(c.actions, a)
	}
	for _, a := range c.actions {
		if a.Type == Check || a.Desired == nil || a.Desired.Details().Listen == nil || a.Type == Delete {
			continue
		}
		switch a.Type {
		case Create, Replace:
		case Restore:
			if a.KeepsRecord() { // puts back the recorded files, with their recorded checks
				continue
			}
		case Repair:
			if a.Details().RenderFrom != "" {
				continue
			}
		default:
			continue
		}
		c.priceListen(a)
	}
}

// priceListen sets a.Listen and adds its checks to a.Cost: a check
// recorded for the audio the action keeps is free; every other is made,
// at the audio's recorded length or, for audio not made yet, at a
// recording's duration or EstimatedSeconds of its text (listenSeconds:
// an upper bound; apply refuses a check longer than that).
func (c *computer) priceListen(a *Action) {
	d := a.Desired
	w := &ListenWork{Regenerate: d.Details().Listen.Regenerate}
	w.Language, w.How = d.ListenLanguage()
	var again Cost
	for _, it := range ListenItems(a) {
		w.Items++
		if it.Recorded(w.Language) {
			w.Recorded++
			if f := it.failing(d); f != "" {
				w.Failing = append(w.Failing, f)
			}
			continue
		}
		w.Make++
		secs, estimated := c.listenSeconds(d, &it)
		w.Estimated = w.Estimated || estimated
		w.AudioSeconds += secs
		again = again.Add(Cost{Characters: it.Characters, AudioSeconds: secs})
	}
	if w.Language == "" {
		w.Make, w.AudioSeconds, again = 0, 0, Cost{}
	}
	a.Cost.AudioSeconds += w.AudioSeconds
	w.Worst = a.Cost
	for range w.Regenerate {
		w.Worst = w.Worst.Add(again)
	}
	a.Listen = w
}

// listenSeconds is what the check of it is priced at: the length of the
// audio the state records for it; for a recorded synthesis, its
// recording's (recordedSeconds); else, estimated, EstimatedSeconds of
// its text.
func (c *computer) listenSeconds(d *Desired, it *ListenItem) (secs float64, estimated bool) {
	if r := it.Record; r != nil && it.SHA256 != "" && r.Seconds > 0 {
		return r.Seconds, false
	}
	chars := it.Characters
	if d.Details().Recorded != nil {
		if secs, ok := c.recordedSeconds(d); ok {
			return secs, false
		}
		chars = int64(utf8.RuneCountInString(it.Text)) // read by a person: bills nothing, but lasts
	}
	return EstimatedSeconds(chars, d.Wire.Synthesis.Speed), true
}

// failing says why the recorded check of it fails at the limits d
// declares now ("chunk 12 of 30 (143.2 s): longest_run: ..."), or ""
// when it passes. A record judged under these limits keeps its verdict;
// one judged under others is judged again, on a copy, from its recorded
// transcript (free, and only then: a plan of 100,000 checks judged
// under the current limits judges none).
func (it *ListenItem) failing(d *Desired) string {
	l := it.Record
	if l.Judged != d.Details().Listen.Hash {
		again := *l
		if err := Judge(&again, it.Text, d.Details().Listen); err != nil {
			return it.name(d) + ": cannot be judged again: " + err.Error()
		}
		l = &again
	}
	if l.Pass {
		return ""
	}
	return it.name(d) + ": " + FailureLine(Placed(l, it.Start))
}

// name names the item for a reader: "chunk 12 of 30 (143.2 s)", or the
// output's path for audio sent whole.
func (it *ListenItem) name(d *Desired) string {
	if it.Chunk < 0 {
		if len(d.Outputs) > 0 {
			return d.Outputs[0].Path
		}
		return "the output"
	}
	return fmt.Sprintf("%s (%.1f s)", ChunkName(it.Chunk, len(d.Details().Chunks)), it.Start)
}

// Reason is the listening part of an action's reasons, as the plan
// shows it: "listen: 31 checks (hi-IN, the synthesis language)", with
// the checks recorded or restored already, or why nothing is checked.
func (w *ListenWork) Reason() string {
	if w.Language == "" {
		return "listen: not checked (" + w.How + ")"
	}
	s := fmt.Sprintf("listen: %d check%s", w.Make, plural(w.Make))
	if w.Recorded > 0 {
		s += fmt.Sprintf(", %d recorded", w.Recorded)
	}
	if w.Restored > 0 {
		s += fmt.Sprintf(", %d restored", w.Restored)
	}
	return s + " (" + w.Language + ", " + w.How + ")"
}

// CheckReason is the reason of a Check action: "listen: 3 of 31 chunks
// not checked (hi-IN, the synthesis language)", or "listen: not checked
// (...)" for audio sent whole.
func (w *ListenWork) CheckReason() string {
	s := "listen: not checked"
	if w.Items > 1 {
		s = fmt.Sprintf("listen: %d of %d chunks not checked", w.Make, w.Items)
	}
	return s + " (" + w.Language + ", " + w.How + ")"
}
