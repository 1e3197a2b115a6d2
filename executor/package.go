package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Bookmaker writes the book files of packages (audio/encode.Tool).
type Bookmaker interface {
	M4B(ctx context.Context, wavIn string, b encode.Book, bitrate int, out string) error
	MP3Book(ctx context.Context, wavIn string, b encode.Book, bitrate int, out string) error
}

// packageOp makes a package's files from its chapters' audio as the state
// records it once their actions are done: each chapter mastered to the
// package's profile (master.MasterPCM), the chapters joined in order
// into one PCM file, and that file encoded as the M4B and the MP3 with
// their chapters starting where each chapter's audio starts in the join,
// exact to the sample; the Podcasting 2.0 chapters beside them. Local and
// free; every file appears complete or not at all.
type packageOp struct {
	files *outputs
	enc   master.Encoder
	books Bookmaker
}

func (op *packageOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	sl.Release() // packaging calls no service
	p := a.Desired.Details().Package
	if op.books == nil && (p.M4B != nil || p.MP3 != nil) {
		return result{}, errors.New("package: no encoder for its book files (ffmpeg); the plan should have refused it")
	}
	tmp, err := os.MkdirTemp("", "voxform-package-*")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(tmp)
	book, shas, joined, err := op.join(ctx, a, tmp)
	if err != nil {
		return result{}, err
	}
	ids := map[string]string{}
	for _, f := range []string{planner.PackageM4B, planner.PackageMP3} {
		if f == planner.PackageM4B && p.M4B != nil || f == planner.PackageMP3 && p.MP3 != nil {
			ids[f] = master.Identity(planner.BookProfile(p, f), op.enc)
		}
	}
	id := ""
	for _, f := range []string{planner.PackageM4B, planner.PackageMP3} {
		if i, ok := ids[f]; ok {
			id += f + ": " + i + "; "
		}
	}
	source := planner.PackageSource(shas)
	dl := &state.Delivery{Profile: p.Profile.Name, Source: source, Encoder: id,
		Fingerprint: planner.PackageFingerprint(a.Desired.Fingerprint, source, id)}
	var outs []*outputFile
	defer func() {
		for _, o := range outs {
			o.Abort()
		}
	}()
	for _, o := range a.Desired.Outputs {
		out, err := op.make(ctx, a, o, book, joined, tmp)
		if err != nil {
			return result{}, fmt.Errorf("package %s: %w", o.Path, err)
		}
		outs = append(outs, out)
	}
	res := &state.Resource{}
	for i, out := range outs {
		rec, err := out.Commit(nil)
		if err != nil {
			return result{}, err
		}
		rec.Format, rec.Delivery = a.Desired.Outputs[i].Format, dl
		res.Outputs = append(res.Outputs, rec)
	}
	return op.files.record(a, res, 0, 0)
}

// make writes one file of the package (of o's format) to a temporary
// output.
func (op *packageOp) make(ctx context.Context, a *planner.Action, o planner.Output, book encode.Book, joined, tmp string) (*outputFile, error) {
	out, err := op.files.output(a, o.Path)
	if err != nil {
		return nil, err
	}
	p := a.Desired.Details().Package
	fill := func(write func(path string) error) error {
		dst := filepath.Join(tmp, "book-"+o.Format)
		if err := write(dst); err != nil {
			return err
		}
		return out.Fill(func(f *os.File) error { return copyFile(f, dst) })
	}
	switch o.Format {
	case planner.PackageM4B:
		err = fill(func(dst string) error { return op.books.M4B(ctx, joined, book, p.M4B.Bitrate, dst) })
	case planner.PackageMP3:
		err = fill(func(dst string) error { return op.books.MP3Book(ctx, joined, book, p.MP3.Bitrate, dst) })
	case planner.PackageChapters:
		err = out.Fill(func(f *os.File) error { return encode.WriteChaptersJSON(f, book) })
	default:
		err = fmt.Errorf("no way to write a %q file", o.Format)
	}
	if err != nil {
		out.Abort()
		return nil, err
	}
	return out, nil
}

// join masters each chapter's recorded audio to the package's profile
// and joins them, in order, into one PCM WAV file in tmp; it returns the
// book (metadata and chapters, each starting at the frames before it),
// the chapters' audio hashes and the joined file's path.
func (op *packageOp) join(ctx context.Context, a *planner.Action, tmp string) (encode.Book, []string, string, error) {
	p := a.Desired.Details().Package
	book := encode.Book{Title: p.Meta.Title, Author: p.Meta.Author, Narrator: p.Meta.Narrator, Language: p.Meta.Language, Year: p.Meta.Year}
	if p.Cover != "" {
		cover, err := copyInput(op.files, p.Cover, coverSHA(a), filepath.Join(tmp, "cover"))
		if err != nil {
			return book, nil, "", fmt.Errorf("package: the cover: %w", err)
		}
		book.Cover = cover
	}
	joined := filepath.Join(tmp, "joined.wav")
	jf, err := os.Create(joined)
	if err != nil {
		return book, nil, "", err
	}
	defer jf.Close()
	var w *audio.WAVWriter
	var frames int64
	var format audio.Format
	shas := make([]string, len(p.Chapters))
	d := &deliverOp{files: op.files}
	for i, ch := range p.Chapters {
		rec := d.current(ch.Synthesis)
		if rec == nil || len(rec.Outputs) == 0 {
			return book, nil, "", fmt.Errorf("package: chapter %d (%s) has no recorded audio", i+1, ch.Synthesis)
		}
		shas[i] = rec.Outputs[0].SHA256
		n, err := op.chapter(ctx, a, rec, tmp, func(f audio.Format) (io.Writer, error) {
			switch {
			case w == nil:
				format = f
				var err error
				w, err = audio.NewWAVWriter(jf, f)
				return w, err
			case f != format:
				return nil, fmt.Errorf("mastered as %s, not as the chapters before it (%s)", f, format)
			}
			return w, nil
		})
		if err != nil {
			return book, nil, "", fmt.Errorf("package: chapter %d (%s): %w", i+1, ch.Synthesis, err)
		}
		book.Chapters = append(book.Chapters, encode.Chapter{Title: ch.Title,
			Start: audio.FramesDuration(frames, format.SampleRate), End: audio.FramesDuration(frames+n, format.SampleRate)})
		frames += n
	}
	if w == nil {
		return book, nil, "", errors.New("package: no chapters")
	}
	if err := w.Close(); err != nil {
		return book, nil, "", err
	}
	return book, shas, joined, jf.Close()
}

// chapter masters the audio rec records (a chapter's) to PCM and
// appends its samples to the writer to gives for its format; it returns
// its frames.
func (op *packageOp) chapter(ctx context.Context, a *planner.Action, rec *state.Resource, tmp string, to func(audio.Format) (io.Writer, error)) (int64, error) {
	sound := rec.Outputs[0]
	src, err := copyInput(op.files, sound.Path, sound.SHA256, filepath.Join(tmp, "source"))
	if err != nil {
		return 0, err
	}
	defer os.Remove(src)
	raw, err := contract.RecordedRawFormat(requestAudioConfig(rec))
	if err != nil {
		return 0, fmt.Errorf("its recorded audio_config: %w", err)
	}
	pcm := filepath.Join(tmp, "chapter.wav")
	f, err := os.Create(pcm)
	if err != nil {
		return 0, err
	}
	defer os.Remove(pcm)
	defer f.Close()
	n, err := master.MasterPCM(ctx, src, raw, a.Desired.Details().Package.Profile, f)
	if err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	format, size, err := audio.ReadWAVHeader(f)
	if err != nil {
		return 0, err
	}
	w, err := to(format)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(w, io.LimitReader(f, size)); err != nil {
		return 0, err
	}
	return n, nil
}

// requestAudioConfig is the audio_config of a recorded synthesis's
// request (nil: none).
func requestAudioConfig(r *state.Resource) map[string]any {
	c, _ := r.RequestFields()["audio_config"].(map[string]any)
	return c
}

// coverSHA is the cover's hash the plan found.
func coverSHA(a *planner.Action) string {
	for _, s := range a.Desired.Details().Sources {
		if s.Role == "cover" {
			return s.SHA256
		}
	}
	return ""
}
