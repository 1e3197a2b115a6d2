package corpus

import (
	"math/rand/v2"
	"strings"

	"github.com/voxform/voxform/redact"
)

// Entity is a stretch of an utterance: bytes [Start, End) of its Text.
type Entity struct {
	Kind       redact.Kind
	Start, End int
	// Form says how it is written or read: "grouped digits", "Hindi
	// words", "invalid check digit"...
	Form string
}

// Utterance is one generated sentence with what a detector must find in
// it (Entities) and what it must leave (LookAlikes: each with the kind
// it resembles).
type Utterance struct {
	Text       string
	Lang       string // "en", "hi" or "hi-en" (code-mixed, Latin script)
	Entities   []Entity
	LookAlikes []Entity
}

// clause is a piece of an utterance with one slot ("{}") for a value.
type clause struct {
	lang, text string
}

// slot marks where the value goes in a clause.
const slot = "{}"

// Generate makes n utterances from seed, the same for the same seed.
// Utterance i carries an entity of kind AllKinds()[i%8] in a form taken
// in turn, so that every kind and form occurs; most carry a look-alike
// too, and some a second entity or a filler.
func Generate(seed int64, n int) []Utterance {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	kinds := redact.AllKinds()
	out := make([]Utterance, 0, n)
	for i := range n {
		var b builder
		b.lang = pick(r, []string{"en", "hi", "hi-en"})
		k := kinds[i%len(kinds)]
		if r.IntN(3) == 0 {
			b.lookAlike(r, i)
		}
		b.entity(r, k, i/len(kinds))
		switch r.IntN(4) {
		case 0:
			b.entity(r, kinds[r.IntN(len(kinds))], r.IntN(100))
		case 1, 2:
			b.lookAlike(r, r.IntN(100))
		}
		if r.IntN(4) == 0 {
			b.add(pick(r, fillers[b.lang]), "", "", false)
		}
		out = append(out, b.u(b.lang))
	}
	return out
}

// builder joins clauses into an utterance.
type builder struct {
	lang string
	text strings.Builder
	ents []Entity
	alik []Entity
}

// add appends the clause with value in its slot, as an entity of kind
// k (lookAlike: one that must be left) when k is given.
func (b *builder) add(c string, value string, k redact.Kind, lookAlike bool, form ...string) {
	if b.text.Len() > 0 {
		b.text.WriteString(map[string]string{"en": ". ", "hi": "। ", "hi-en": ". "}[b.lang])
	}
	before, after, _ := strings.Cut(c, slot)
	b.text.WriteString(before)
	start := b.text.Len()
	b.text.WriteString(value)
	if k != "" {
		e := Entity{Kind: k, Start: start, End: b.text.Len(), Form: strings.Join(form, "")}
		if lookAlike {
			b.alik = append(b.alik, e)
		} else {
			b.ents = append(b.ents, e)
		}
	}
	b.text.WriteString(after)
}

func (b *builder) u(lang string) Utterance {
	return Utterance{Text: b.text.String(), Lang: lang, Entities: b.ents, LookAlikes: b.alik}
}

// template picks a clause of the utterance's language from cs.
func (b *builder) template(r *rand.Rand, cs []clause) string {
	var fit []string
	for _, c := range cs {
		if c.lang == b.lang {
			fit = append(fit, c.text)
		}
	}
	return pick(r, fit)
}

// fillers are clauses without a number.
var fillers = map[string][]string{
	"en":    {"thank you for calling", "please hold the line", "is there anything else"},
	"hi":    {"धन्यवाद", "कृपया लाइन पर बने रहें", "और कुछ बताइए"},
	"hi-en": {"thank you ji", "please line pe rahiye", "aur kuch batayiye"},
}
