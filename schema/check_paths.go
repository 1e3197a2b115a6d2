package schema

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
)

// output is one file a resource writes.
type output struct {
	path    string
	address string
	pos     manifest.Pos
}

// checkPaths: outputs stay inside the manifest directory, no two
// resources write one path, no output is also an input, and no output is
// a directory of another.
func (c *checker) checkPaths() {
	outs := c.outputs()
	inputs := c.inputs()
	byPath := make(map[string]int32, len(outs)) // the index in outs
	root, rootErr := owned.Open(c.m.Dir)
	if rootErr == nil {
		defer root.Close()
		for p, what := range inputs { // an input reached through a link is the same file
			if r, err := root.Resolve(p); err == nil && r != p {
				inputs[r] = what
			}
		}
	}
	for i := range outs {
		o := &outs[i]
		if err := owned.CheckRel(o.path); err != nil {
			c.ds.Errorf(o.pos, "output %v", strings.TrimPrefix(err.Error(), "path ")).
				WithHint("write outputs below the manifest directory, for example build/")
			continue
		}
		// As the file system resolves it: a directory on its way that is
		// a symbolic link out of the tree (or into .voxform/) is refused,
		// and two spellings of one file (through a link inside the tree)
		// are one path.
		key := o.path
		if rootErr == nil {
			resolved, err := root.Resolve(o.path)
			if err != nil {
				c.ds.Errorf(o.pos, "output %v", strings.TrimPrefix(err.Error(), "path ")).
					WithHint("voxform writes only inside the manifest directory; make the directory a real one, or point the output elsewhere")
				continue
			}
			if resolved != o.path {
				key = resolved
			}
		}
		if j, dup := byPath[key]; dup {
			prev := &outs[j]
			same := ""
			if prev.path != o.path {
				same = fmt.Sprintf(" (as %q: both are %q)", prev.path, key)
			}
			c.ds.Errorf(o.pos, "output %q of %s is also written by %s%s (%s)", o.path, o.address, prev.address, same, prev.pos).
				WithHint("give every resource its own output path")
			continue
		}
		byPath[key] = int32(i)
		what, ok := inputs[o.path]
		if !ok {
			what, ok = inputs[key]
		}
		if ok {
			c.ds.Errorf(o.pos, "output %q of %s is also an input (%s)", o.path, o.address, what)
		}
	}
	for p, i := range byPath {
		o := &outs[i]
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if j, ok := byPath[dir]; ok {
				c.ds.Errorf(o.pos, "output %q of %s is inside %q, a file written by %s", p, o.address, dir, outs[j].address)
			}
		}
	}
}

// outputs lists every output in address order; for_each instances are
// positioned at their key (the data file row) where known.
func (c *checker) outputs() []output {
	outs := make([]output, 0, len(c.m.Embeddings)+len(c.m.Syntheses)+len(c.m.Transcriptions)) // at least

	for _, e := range c.m.Embeddings {
		if e.Output != "" {
			outs = append(outs, output{e.Output, e.Address, manifest.FieldPos(e.Fields, "output", e.Pos)})
		}
	}
	for _, s := range c.m.Syntheses {
		if s.Output == "" {
			continue
		}
		pos := manifest.FieldPos(s.Fields, "output", s.Pos)
		if s.HasKey && s.KeyPos.Line > 0 {
			pos = s.KeyPos
		}
		outs = append(outs, output{s.Output, s.Address, pos})
		sd := s.Details()
		for _, d := range sd.Deliver {
			at := d.Pos
			if s.HasKey && s.KeyPos.Line > 0 {
				at = s.KeyPos
			}
			outs = append(outs, output{d.Output, s.Address, at})
		}
		if sd.Cues == nil {
			continue
		}
		for _, cue := range []struct{ name, path string }{{"json", sd.Cues.JSON}, {"vtt", sd.Cues.VTT}} {
			if cue.path == "" {
				continue
			}
			pos := manifest.FieldPos(s.Fields, "cues."+cue.name, manifest.FieldPos(s.Fields, "cues", s.Pos))
			if s.HasKey && s.KeyPos.Line > 0 {
				pos = s.KeyPos
			}
			outs = append(outs, output{cue.path, s.Address, pos})
		}
	}
	for _, p := range c.m.Packages {
		outs = append(outs, packageOutputs(p)...)
	}
	for _, t := range c.m.Transcriptions {
		formats := make([]string, 0, len(t.Outputs))
		for f := range t.Outputs {
			formats = append(formats, f)
		}
		sort.Strings(formats)
		for _, f := range formats {
			outs = append(outs, output{t.Outputs[f], t.Address, t.InputPos})
		}
		if t.RedactedAudio != "" {
			outs = append(outs, output{t.RedactedAudio, t.Address, t.InputPos})
		}
	}
	return outs
}

// inputs maps each file voxform reads to a description.
func (c *checker) inputs() map[string]string {
	in := map[string]string{}
	for _, f := range c.m.Files {
		in[f] = "a manifest file"
	}
	for _, f := range c.m.DataFiles {
		in[f] = "a for_each data file"
	}
	for _, f := range c.m.TextFiles {
		in[f] = "a text_file or lexicon"
	}
	for _, f := range c.m.VarFiles {
		in[path.Clean(f)] = "a -var-file"
	}
	for _, e := range c.m.Embeddings {
		if e.ReferenceAudio != "" {
			in[e.ReferenceAudio] = "reference audio of " + e.Address
		}
	}
	for _, v := range c.m.Voices {
		if v.EmbeddingFile != "" {
			in[v.EmbeddingFile] = "embedding file of " + v.Address
		}
	}
	for _, p := range c.m.Packages {
		if p.Cover != "" {
			in[p.Cover] = "cover of " + p.Address
		}
	}
	for _, t := range c.m.Transcriptions {
		if !t.IsURL {
			in[t.Input] = "input of " + t.Address
		}
	}
	for _, s := range c.m.Syntheses {
		if r := s.Details().Recorded; r != nil {
			in[r.Path] = "recording of " + s.Address
		}
	}
	return in
}

// packageOutputs lists the files a package writes, each at its field.
func packageOutputs(p *manifest.Package) []output {
	var outs []output
	for _, f := range []struct {
		name string
		file *manifest.BookFile
	}{{"m4b", p.M4B}, {"mp3", p.MP3}} {
		if f.file != nil {
			at := manifest.FieldPos(p.Fields, f.name+".output", manifest.FieldPos(p.Fields, f.name, p.Pos))
			outs = append(outs, output{f.file.Output, p.Address, at})
		}
	}
	if p.ChaptersJSON != "" {
		outs = append(outs, output{p.ChaptersJSON, p.Address, manifest.FieldPos(p.Fields, "chapters_json", p.Pos)})
	}
	return outs
}
