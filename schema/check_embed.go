package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/speechapi"
)

// checkEmbeddings checks reference recordings: present, WAV or MP3, and
// ideally 5 to 30 s long.
// conformance: VC-012, VC-013
func (c *checker) checkEmbeddings() {
	for _, e := range c.m.Embeddings {
		f := func(n string) manifest.Pos { return manifest.FieldPos(e.Fields, n, e.Pos) }
		if e.Output == "" {
			c.ds.Errorf(e.Pos, "embedding %q has no output", e.Name)
		} else if ext := strings.ToLower(path.Ext(e.Output)); ext != ".json" {
			c.ds.Warnf(f("output"), "output %q of embedding %q holds JSON but is named %s", e.Output, e.Name, ext)
		}
		if e.ReferenceAudio == "" {
			c.ds.Errorf(e.Pos, "embedding %q has no reference_audio", e.Name)
			continue
		}
		ext := strings.TrimPrefix(strings.ToLower(path.Ext(e.ReferenceAudio)), ".")
		if !slices.Contains(c.cat.RefAudioFormats, ext) {
			c.ds.Errorf(f("reference_audio"), "reference_audio %q must be a WAV or MP3 file", e.ReferenceAudio)
			continue
		}
		c.checkReferenceAudio(e, f("reference_audio"))
	}
}

// checkReferenceAudio checks an embedding's reference recording, opened
// as an input (owned.OpenInput) and read through that handle: WAV or MP3,
// and ideally 5 to 30 s long.
func (c *checker) checkReferenceAudio(e *manifest.Embedding, pos manifest.Pos) {
	in, err := owned.OpenInput(c.m.Dir, filepath.FromSlash(e.ReferenceAudio))
	if err != nil {
		c.ds.Errorf(pos, "reference_audio %q %s", e.ReferenceAudio, inputProblem(err, "does not exist or is not a file"))
		return
	}
	defer in.Close()
	full := owned.HandlePath(in)
	if got := sniffFile(full); got != "" && got != string(audio.ContainerWAV) && got != string(audio.ContainerMP3) {
		c.ds.Errorf(pos, "reference_audio %q is not WAV or MP3 (its content is %s)", e.ReferenceAudio, got)
		return
	}
	info, ok := c.probe(full, e.ReferenceAudio, pos)
	if !ok {
		return
	}
	if info.Duration < c.cat.RefAudioMin || info.Duration > c.cat.RefAudioMax {
		c.ds.Warnf(pos, "reference_audio %q is %s long; 5 to 30 s of clear speech is ideal",
			e.ReferenceAudio, roundDuration(info.Duration))
	}
}

// inputProblem says why an input could not be opened (owned.OpenInput),
// after its name; missing, when set, says it of a file that is not there.
func inputProblem(err error, missing string) string {
	var oe *owned.Error
	switch {
	case errors.As(err, &oe):
		return oe.Reason
	case missing != "" && errors.Is(err, fs.ErrNotExist):
		return missing
	}
	return fmt.Sprintf("cannot be read: %v", causeOf(err))
}

// checkEmbeddingFile checks a vc-v1 voice's embedding file: present and an
// embedding object (embedding string, shape of two integers, dtype).
// conformance: VC-007, VC-008, VC-009
func (c *checker) checkEmbeddingFile(v *manifest.Voice) {
	pos := manifest.FieldPos(v.Fields, "embedding_file", v.Pos)
	for _, e := range c.m.Embeddings {
		if e.Output == v.EmbeddingFile {
			c.ds.Errorf(pos, "embedding_file %q is the output of embedding %q", v.EmbeddingFile, e.Name).
				WithHint("write embedding: %s instead, so that the embedding is made first", e.Name)
			return
		}
	}
	f, err := owned.OpenInput(c.m.Dir, filepath.FromSlash(v.EmbeddingFile))
	if err != nil {
		c.ds.Errorf(pos, "embedding_file %q %s", v.EmbeddingFile, inputProblem(err, ""))
		return
	}
	defer f.Close()
	var obj struct {
		Embedding *string `json:"embedding"`
		Shape     []int   `json:"shape"`
		Dtype     *string `json:"dtype"`
	}
	src, err := io.ReadAll(io.LimitReader(f, speechapi.MaxEmbeddingBytes+1))
	switch {
	case err != nil:
		c.ds.Errorf(pos, "embedding_file %q cannot be read: %v", v.EmbeddingFile, causeOf(err))
		return
	case len(src) > speechapi.MaxEmbeddingBytes:
		c.ds.Errorf(pos, "embedding_file %q is larger than %d MiB, the limit for an embedding (MaxEmbeddingBytes)",
			v.EmbeddingFile, speechapi.MaxEmbeddingBytes>>20)
		return
	}
	if err := json.NewDecoder(bytes.NewReader(src)).Decode(&obj); err != nil {
		c.ds.Errorf(pos, "embedding_file %q is not an embedding JSON object: %v", v.EmbeddingFile, err)
		return
	}
	switch {
	case obj.Embedding == nil || obj.Dtype == nil || len(obj.Shape) != 2:
		c.ds.Errorf(pos, "embedding_file %q lacks embedding, shape (two integers) or dtype", v.EmbeddingFile)
	case obj.Shape[1] != 768:
		c.ds.Warnf(pos, "embedding_file %q has shape %v; the service's embeddings are N x 768", v.EmbeddingFile, obj.Shape)
	}
}

// abs resolves a manifest-relative path.
func (c *checker) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.m.Dir, filepath.FromSlash(p))
}

func causeOf(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// sniffFile names the container of a file from its first bytes; "" when
// it cannot be read or is empty.
func sniffFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, audio.SniffLen)
	n, _ := io.ReadFull(f, head)
	if n == 0 {
		return ""
	}
	return string(audio.Sniff(head[:n]))
}
