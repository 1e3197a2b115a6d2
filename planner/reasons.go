package planner

import (
	"fmt"
	"sort"
	"strings"
)

// fieldRank orders reasons: what a reviewer cares about first.
var fieldRank = map[string]int{
	"recorded": 0, "model": 1, "voice": 2, "speaker_embedding": 3, "reference_audio": 3, "source": 3,
	"api": 4, "language": 5, "language_code": 5, "speed": 6, "text": 7, "audio_config": 8,
}

// changeReasons names each field of the canonical request that changed
// between the recorded request and d's. A state without a recorded request
// (written by hand, or damaged) gives "fingerprint changed". embeddingName
// names the recorded embedding of a fingerprint ("" when none), so that a
// synthesis moved to another cloned voice says from which.
func changeReasons(prior map[string]any, d *Desired, embeddingName func(fp string) string) []string {
	if prior == nil {
		return []string{"fingerprint changed"}
	}
	request := d.RequestFields()
	if out, ok := recordedSwitch(prior, request); ok {
		return out
	}
	keys := unionKeys(prior, request)
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	var out []string
	for _, k := range keys {
		old, oldOK := prior[k]
		cur, curOK := request[k]
		if oldOK && curOK && equalJSON(old, cur) {
			continue
		}
		if k == "speaker_embedding" {
			out = append(out, embeddingReason(old, oldOK, d, embeddingName))
			continue
		}
		out = append(out, fieldReason(k, old, oldOK, cur, curOK, d)...)
	}
	if len(out) == 0 {
		out = []string{"fingerprint changed"}
	}
	return out
}

func rank(k string) int {
	if r, ok := fieldRank[k]; ok {
		return r
	}
	return 50
}

func fieldReason(k string, old any, oldOK bool, cur any, curOK bool, d *Desired) []string {
	switch k {
	case "text":
		return []string{"text"}
	case "recorded":
		return recordedReasons(old, cur)
	case "chunks":
		return nil // said by the chunk count (ChunkWork.Reason)
	case "chapters":
		return chapterReasons(old, cur)
	case "profile":
		return []string{"profile changed"}
	case "reference_audio":
		return []string{"reference audio changed"}
	case "source":
		if m, ok := cur.(map[string]any); ok && m["url"] != nil {
			return []string{"source URL changed"}
		}
		return []string{"source file changed"}
	case "audio_config":
		om, _ := old.(map[string]any)
		cm, _ := cur.(map[string]any)
		containerChanged := !equalJSON(om["container"], cm["container"])
		var out []string
		for _, sk := range sortedKeys(unionKeys(om, cm)) {
			ov, ook := om[sk]
			cv, cok := cm[sk]
			if ook && cok && equalJSON(ov, cv) {
				continue
			}
			if !cok && containerChanged {
				continue // a field the new container does not use
			}
			out = append(out, fmt.Sprintf("audio_config.%s %s -> %s", sk, show(ov, ook), show(cv, cok)))
		}
		return out
	}
	return []string{fmt.Sprintf("%s %s -> %s", k, show(old, oldOK), show(cur, curOK))}
}

// embeddingReason names a change of a synthesis's speaker embedding: the
// embedding it depends on changed ("embedding founder changed", the
// cascade of a new reference recording), its embedding file changed, or
// the synthesis now speaks in another cloned voice ("embedding founder ->
// guest", "embedding (unset) -> founder").
func embeddingReason(old any, oldOK bool, d *Desired, embeddingName func(string) string) string {
	from, fromFile := "(unset)", false
	if m, ok := old.(map[string]any); oldOK && ok {
		switch fp, _ := m["embedding_fingerprint"].(string); {
		case fp != "":
			from = embeddingName(fp)
		case m["file_sha256"] != nil:
			from, fromFile = "file", true
		default:
			from = ""
		}
	}
	switch {
	case len(d.Details().DependsOn) > 0:
		to := strings.TrimPrefix(d.Details().DependsOn[0], "embedding.")
		if from == to || from == "" {
			// The embedding itself changed since this synthesis was made
			// (its recorded fingerprint is gone from the state).
			return fmt.Sprintf("embedding %s changed", to)
		}
		return fmt.Sprintf("embedding %s -> %s", from, to)
	case len(d.Details().Sources) > 0 && d.Details().Sources[0].Path != "":
		to := "file " + d.Details().Sources[0].Path
		if fromFile {
			return fmt.Sprintf("embedding %s changed", to)
		}
		if from == "" {
			return "embedding changed to " + to
		}
		return fmt.Sprintf("embedding %s -> %s", from, to)
	}
	if from == "" {
		from = "(recorded)"
	}
	return fmt.Sprintf("embedding %s -> (unset)", from)
}

func unionKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func sortedKeys(k []string) []string {
	sort.Strings(k)
	return k
}

func equalJSON(a, b any) bool {
	x, err1 := Canonical(a)
	y, err2 := Canonical(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// show formats a request value for a reason: strings bare, others as JSON.
func show(v any, ok bool) string {
	if !ok {
		return "(unset)"
	}
	if s, isStr := v.(string); isStr {
		if s == "" {
			return `""`
		}
		return s
	}
	b, err := Canonical(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// chapterReasons names each change of a package's chapters: "chapter 2
// title A -> B", "chapter 3 synthesis.x audio changed", "chapters 2 -> 3".
func chapterReasons(old, cur any) []string {
	o, _ := old.([]any)
	c, _ := cur.([]any)
	var out []string
	if len(o) != len(c) {
		out = append(out, fmt.Sprintf("chapters %d -> %d", len(o), len(c)))
	}
	for i := range min(len(o), len(c)) {
		om, _ := o[i].(map[string]any)
		cm, _ := c[i].(map[string]any)
		switch {
		case !equalJSON(om["synthesis"], cm["synthesis"]):
			out = append(out, fmt.Sprintf("chapter %d %s -> %s", i+1, show(om["synthesis"], true), show(cm["synthesis"], true)))
		case !equalJSON(om["fingerprint"], cm["fingerprint"]):
			out = append(out, fmt.Sprintf("chapter %d %s changed", i+1, show(cm["synthesis"], true)))
		}
		if !equalJSON(om["title"], cm["title"]) {
			out = append(out, fmt.Sprintf("chapter %d title %s -> %s", i+1, show(om["title"], true), show(cm["title"], true)))
		}
	}
	return out
}
