package manifest

import (
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/owned"
)

// DefaultBatchModel is the batch jobs model (speech-recognition.md, Versioning).
const DefaultBatchModel = contract.DefaultBatchModel

// transcriptionInput is one input of a transcription block.
type transcriptionInput struct {
	key     string // path relative to Dir, or the URL without query and fragment
	input   string // the whole URL, when it differs from key
	rel     string // output path stem below output_dir
	isURL   bool
	pattern string
	pos     Pos
}

func (x *expander) expandTranscriptions() {
	for _, name := range x.raw.sortedNames("transcriptions") {
		b := x.raw.Blocks["transcriptions"][name]
		if x.raw.isBroken("transcriptions", name) {
			continue
		}
		fs := fieldsOf(b.File, b.Node)
		pos := fieldPositions(fs)
		x.raw.dropBroken("transcriptions", name, fs)
		sc := x.scope()
		x.failed = false
		proto := x.transcriptionProto(b, fs, sc)
		proto.Fields = pos
		if x.failed {
			continue // reported
		}
		x.m.TranscriptionSettings = append(x.m.TranscriptionSettings, proto)
		if fs["inputs"] == nil && fs["urls"] == nil {
			x.ds.Errorf(b.Pos(), "transcription %q has neither inputs nor urls", name).
				WithHint("list local files (globs allowed) under inputs:, or https URLs under urls: (api batch)")
		}
		for _, in := range x.transcriptionInputs(b, fs, sc, proto) {
			t := *proto
			t.Key, t.Input, t.IsURL, t.Pattern = in.key, in.key, in.isURL, in.pattern
			if in.input != "" {
				t.Input = in.input
			}
			t.Address = Address(KindTranscription, name, in.key, true)
			t.Outputs = make(map[string]string, len(t.Formats))
			for _, f := range t.Formats {
				t.Outputs[f] = path.Join(t.OutputDir, in.rel+"."+f)
			}
			t.InputPos = in.pos
			if t.Redact != nil && t.Redact.Audio != "" && !in.isURL {
				t.RedactedAudio = path.Join(t.OutputDir, in.rel+".redacted"+strings.ToLower(path.Ext(in.key)))
				x.redactedNotInput(&t, fs["inputs"], sc)
			}
			x.m.Transcriptions = append(x.m.Transcriptions, &t)
		}
	}
}

// transcriptionProto evaluates the settings shared by every input.
func (x *expander) transcriptionProto(b *Block, fs map[string]*field, sc *scope) *Transcription {
	t := &Transcription{Name: b.Name, Pos: b.Pos(), Fields: fieldPositions(fs)}
	t.API, _, _ = x.str(fs["api"], sc)
	t.Model, _, _ = x.str(fs["model"], sc)
	if t.Model == "" && t.API == APIBatch {
		t.Model = DefaultBatchModel
	}
	t.LanguageCode, _, _ = x.str(fs["language_code"], sc)
	t.Format, _, _ = x.str(fs["format"], sc)
	t.ITNNativeNumerals, _ = x.boolean(fs["itn_native_numerals"], sc)
	t.WithDiarization, _ = x.boolean(fs["with_diarization"], sc)
	if n, ok := x.integer(fs["num_speakers"], sc); ok {
		t.NumSpeakers = int(n)
	}
	t.IsMultiChannel, _ = x.boolean(fs["is_multi_channel"], sc)
	if d, ok := x.boolean(fs["with_denoise"], sc); ok {
		t.WithDenoise = &d
	}
	t.CallbackURL, _, _ = x.str(fs["callback_url"], sc)
	if n, ok := x.integer(fs["sample_rate"], sc); ok {
		t.SampleRate = int(n)
	} else if t.API == APIRealtime {
		t.SampleRate = 16000
	}
	if d, _, ok := x.str(fs["output_dir"], sc); ok {
		t.OutputDir = cleanRel(d)
	}
	t.Formats, _, _ = x.strList(fs["formats"], sc)
	if len(t.Formats) == 0 {
		t.Formats = []string{"json"}
	}
	t.InputDirs = x.inputDirs(fs["input_dirs"], sc)
	t.Redact = x.redaction(fs["redact"], sc)
	t.Channels = x.channels(fs["channels"], sc)
	return t
}

// inputDirs evaluates input_dirs: absolute directories, outside the
// manifest directory, that inputs may really lie in. Each is named in the
// manifest for a reviewer to see; a symbolic link a contributor adds
// reaches no further than they do.
func (x *expander) inputDirs(f *field, sc *scope) []string {
	dirs, pos, _ := x.strList(f, sc)
	var out []string
	for i, d := range dirs {
		native := filepath.FromSlash(d)
		if !filepath.IsAbs(native) {
			x.ds.Errorf(pos[i], "input_dirs entry %q is not an absolute path", d).
				WithHint("name the directory outside the project that a symbolic link among the inputs leads to, as an absolute path")
			continue
		}
		if st, err := os.Stat(native); err != nil || !st.IsDir() {
			x.ds.Errorf(pos[i], "input_dirs entry %q does not exist or is not a directory", d)
			continue
		}
		out = append(out, filepath.Clean(native))
	}
	return out
}

// transcriptionInputs expands inputs: globs and urls: into inputs with
// their output stems.
func (x *expander) transcriptionInputs(b *Block, fs map[string]*field, sc *scope, proto *Transcription) []transcriptionInput {
	var out []transcriptionInput
	pats, ppos, _ := x.strList(fs["inputs"], sc)
	for i, p := range pats {
		out = append(out, x.glob(p, ppos[i], proto.InputDirs)...)
	}
	urls, upos, _ := x.strList(fs["urls"], sc)
	for i, u := range urls {
		if in, ok := x.urlInput(u, upos[i]); ok {
			out = append(out, in)
		}
	}
	seen := map[string]Pos{}
	kept := out[:0]
	for _, in := range out {
		if prev, dup := seen[in.key]; dup {
			x.ds.Warnf(in.pos, "input %q of transcription %q is also matched at %s; it is transcribed once", in.key, b.Name, prev)
			continue
		}
		seen[in.key] = in.pos
		kept = append(kept, in)
	}
	return kept
}

func (x *expander) urlInput(raw string, pos Pos) (transcriptionInput, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		x.ds.Errorf(pos, "url %q is not an absolute URL", raw)
		return transcriptionInput{}, false
	}
	if !contract.SecureOrLoopback(raw, "https", "http") { // http only for loopback (tests, emulator)
		x.ds.Errorf(pos, "url %q must use https", raw).WithHint("batch jobs fetch public HTTPS URLs only")
		return transcriptionInput{}, false
	}
	if strings.HasSuffix(u.Path, "/") || u.Path == "" {
		x.ds.Errorf(pos, "url %q names a prefix, not a file", raw).
			WithHint("the service expands a prefix itself, so voxform cannot know its outputs; list the files")
		return transcriptionInput{}, false
	}
	base := path.Base(u.Path)
	// The address and the state name the URL without its query and
	// fragment: a pre-signed URL's signature is a credential that must not
	// reach a committed state file, and re-signing must not look like a
	// new input. Input keeps the whole URL for the service.
	key := *u
	key.RawQuery, key.Fragment, key.User = "", "", nil
	return transcriptionInput{key: key.String(), input: raw, rel: strings.TrimSuffix(base, path.Ext(base)), isURL: true, pattern: raw, pos: pos}, true
}

// maxWalk bounds the files below one input pattern's directory prefix.
const maxWalk = 1_000_000

// MaxGlobMatches bounds the file names matched against input patterns in
// one manifest, all patterns together: each pattern is matched against
// every file below its directory prefix, so that a hundred thousand
// patterns over one recordings tree would otherwise cost a hundred
// thousand walks of it.
const MaxGlobMatches = 2_000_000

// walked is the list of files below one directory, walked once per load.
type walked struct {
	files     [][]string // slash-separated segments relative to the directory
	truncated bool       // more than maxWalk files
}

// walk lists the files below root once per load.
func (x *expander) walk(root string) *walked {
	if w, ok := x.walks[root]; ok {
		return w
	}
	w := &walked{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if len(w.files) == maxWalk {
			w.truncated = true
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(root, p); err == nil {
			w.files = append(w.files, strings.Split(filepath.ToSlash(rel), "/"))
		}
		return nil
	})
	x.walks[root] = w
	return w
}

// hasMeta reports whether a path segment holds glob syntax.
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// glob expands one inputs: pattern (with ** for any number of directories)
// relative to the manifest directory. Its directory prefix must really lie
// inside the manifest directory or one of dirs (input_dirs).
func (x *expander) glob(pattern string, pos Pos, dirs []string) []transcriptionInput {
	pat := cleanRel(pattern)
	if filepath.IsAbs(filepath.FromSlash(pattern)) {
		x.ds.Errorf(pos, "input pattern %q is absolute", pattern).WithHint("write inputs relative to the manifest directory")
		return nil
	}
	if pat == ".." || strings.HasPrefix(pat, "../") {
		x.ds.Errorf(pos, "input pattern %q leaves the manifest directory", pattern).
			WithHint("inputs live below the manifest directory; a symbolic link to a recordings directory works when input_dirs names it")
		return nil
	}
	segs := strings.Split(pat, "/")
	fixed := 0
	for fixed < len(segs) && !hasMeta(segs[fixed]) {
		fixed++
	}
	for _, s := range segs[fixed:] {
		if _, err := path.Match(s, ""); err != nil && s != "**" {
			x.ds.Errorf(pos, "input pattern %q is malformed: %v", pattern, err)
			return nil
		}
	}
	if fixed == len(segs) { // a plain file
		full := filepath.Join(x.raw.Dir, filepath.FromSlash(pat))
		st, err := os.Stat(full)
		if err != nil || st.IsDir() {
			x.ds.Errorf(pos, "input %q does not exist or is not a file", pattern)
			return nil
		}
		base := path.Base(pat)
		return []transcriptionInput{{key: pat, rel: strings.TrimSuffix(base, path.Ext(base)), pattern: pattern, pos: pos}}
	}
	prefix := strings.Join(segs[:fixed], "/")
	root := filepath.Join(x.raw.Dir, filepath.FromSlash(prefix))
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		if !x.inputPlace(resolved, dirs) {
			x.ds.Errorf(pos, "input pattern %q: %s leads outside the manifest directory through a symbolic link", pattern, prefix).
				WithHint("name the directory it leads to under input_dirs: of this transcription, if its recordings are meant to be read")
			return nil
		}
		root = resolved // walk a linked directory's contents
	}
	w := x.walk(root)
	if w.truncated {
		x.ds.Errorf(pos, "input pattern %q walks more than %d files", pattern, maxWalk).
			WithHint("narrow the pattern's directory prefix")
		return nil
	}
	if x.globMatches += len(w.files); x.globMatches > MaxGlobMatches {
		x.ds.Errorf(pos, "input pattern %q brings the file names matched against input patterns over %s, the limit for one manifest",
			pattern, numfmt.Thousands(MaxGlobMatches)).
			WithHint("list fewer patterns, or narrow their directory prefixes")
		return nil
	}
	var out []transcriptionInput
	for _, f := range w.files {
		if !matchSegs(segs[fixed:], f) {
			continue
		}
		rr := strings.Join(f, "/")
		key := rr
		if prefix != "" && prefix != "." {
			key = path.Join(prefix, rr)
		}
		out = append(out, transcriptionInput{key: key, rel: strings.TrimSuffix(rr, path.Ext(rr)), pattern: pattern, pos: pos})
	}
	if len(out) == 0 {
		x.ds.Warnf(pos, "input pattern %q matches no files", pattern)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// redactedNotInput refuses a redacted copy of a recording that one of the
// block's input patterns would match: the next plan would take it for a
// recording to transcribe (and pay for).
func (x *expander) redactedNotInput(t *Transcription, f *field, sc *scope) {
	pats, _, _ := x.strList(f, sc)
	for _, pat := range pats {
		if matchSegs(strings.Split(path.Clean(pat), "/"), strings.Split(t.RedactedAudio, "/")) {
			x.ds.Errorf(FieldPos(t.Redact.Fields, "audio", t.Redact.Pos), "redact.audio: the redacted copy %s would match input pattern %q and be transcribed as a recording", t.RedactedAudio, pat).
				WithHint("write the outputs to another directory (output_dir), or narrow the input pattern")
			t.RedactedAudio = ""
			return
		}
	}
}

// matchSegs matches path segments against pattern segments; "**" matches
// zero or more segments.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// inputPlace reports whether real, a path with its symbolic links
// resolved, lies inside the manifest directory or one of dirs, resolved
// alike (owned.Within).
func (x *expander) inputPlace(real string, dirs []string) bool {
	allowed := make([]string, 0, len(dirs)+1)
	for _, d := range append([]string{x.raw.Dir}, dirs...) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			allowed = append(allowed, r)
		}
	}
	return owned.Within(real, allowed...)
}
