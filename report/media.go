package report

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/owned"
)

// The page's subdirectories.
const (
	audioDir = "audio"
	waveDir  = "wave"
)

// clip is one audio file of the page.
type clip struct {
	// Src is the copy's path relative to the page; empty when the audio is
	// not available (Note says why).
	Src      string  `json:"src,omitempty"`
	Wave     string  `json:"wave,omitempty"`
	Label    string  `json:"label,omitempty"`
	Duration float64 `json:"duration,omitempty"`
	Size     int64   `json:"size,omitempty"`
	// Clipped counts samples at full scale; Peak is the sample peak in dBFS.
	Clipped  int64    `json:"clipped,omitempty"`
	Peak     *float64 `json:"peak,omitempty"`
	LUFS     *float64 `json:"lufs,omitempty"`
	TruePeak *float64 `json:"true_peak,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// transcriptView is a transcription's segments as the page shows them.
type transcriptView struct {
	Segments []segment `json:"segments"`
	// More counts segments over MaxSegments, not shown.
	More int    `json:"more,omitempty"`
	Note string `json:"note,omitempty"`
}

type segment struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Speaker string  `json:"speaker,omitempty"`
	Text    string  `json:"text"`
}

// media places the page's audio and reads transcripts. Identical audio is
// placed once, whichever rows show it.
type media struct {
	in   Input
	out  *os.File // the audio directory, opened once
	wave *os.File // the waveform directory

	mu     sync.Mutex
	placed map[string]*placing // by SHA-256
}

type placing struct {
	once sync.Once
	clip *clip
}

func newMedia(in Input) (*media, error) {
	d, err := owned.OpenDirFile(filepath.Join(in.Out, audioDir))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	w, err := owned.OpenDirFile(filepath.Join(in.Out, waveDir))
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("report: %w", err)
	}
	return &media{in: in, out: d, wave: w, placed: map[string]*placing{}}, nil
}

func (m *media) close() {
	m.out.Close()
	m.wave.Close()
}

// fillItem places the audio of a row and reads its transcript.
func (m *media) fillItem(ctx context.Context, it *item) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if it.cur.wanted() {
		it.Audio = m.clip(ctx, it.cur)
		if it.Audio.Duration > 0 && it.Kind != "transcription" {
			it.Duration = it.Audio.Duration
		}
	}
	if it.prev.wanted() {
		it.Previous = m.clip(ctx, it.prev)
	}
	if it.transcriptJ.wanted() {
		it.Transcript = m.readTranscript(it.transcriptJ)
	}
	return nil
}

// clip places the audio ref names, or says why it cannot.
func (m *media) clip(ctx context.Context, ref audioRef) *clip {
	sha, open, why := m.find(ref)
	if open == nil {
		return &clip{Label: ref.Label, Note: why}
	}
	m.mu.Lock()
	p := m.placed[sha]
	if p == nil {
		p = &placing{}
		m.placed[sha] = p
	}
	m.mu.Unlock()
	p.once.Do(func() { p.clip = m.place(ctx, sha, open, ref) })
	c := *p.clip
	c.Label = ref.Label
	if l := ref.Loudness; l != nil && c.LUFS == nil && c.TruePeak == nil { // recorded, not measured here
		if l.Integrated != nil {
			v := round1(*l.Integrated)
			c.LUFS = &v
		}
		if l.TruePeak != nil {
			v := round1(*l.TruePeak)
			c.TruePeak = &v
		}
	}
	if ref.Role == "audio" && ref.Path != "" && ref.Loudness == nil && !m.in.Loudness {
		c.Note = join(c.Note, notMeasured)
	}
	return &c
}

// notMeasured is the note of a synthesis output whose loudness the state
// does not record: apply measures it only where the manifest declares
// loudness:.
const notMeasured = "loudness not measured (apply measures it where the manifest declares loudness:; report -loudness measures it now)"

// find says where the content of ref is: its SHA-256 and a function that
// copies it into a file; nil and why not when it is nowhere.
func (m *media) find(ref audioRef) (string, func(*os.File) error, string) {
	why := ref.Missing
	if ref.Path != "" && ref.SHA256 != "" {
		p := filepath.Join(m.in.Dir, filepath.FromSlash(ref.Path))
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return ref.SHA256, func(dst *os.File) error { return copyChecked(dst, p, ref.SHA256) }, ""
		}
		why = ref.Path + " is not on disk"
	}
	if ref.Fingerprint != "" && ref.Role != "" {
		switch {
		case m.in.Cache == nil:
			why = join(why, "not in the output cache (there is none here)")
		case !cache.ValidKey(ref.Fingerprint):
			why = join(why, "recorded with an invalid fingerprint")
		default:
			e, err := m.in.Cache.Entry(ref.Fingerprint)
			if err == nil && e != nil {
				if f, ok := e.File(ref.Role); ok && (ref.SHA256 == "" || f.SHA256 == ref.SHA256) {
					return f.SHA256, func(dst *os.File) error { return m.in.Cache.CopyBlob(f.SHA256, dst) }, ""
				} else if ok {
					why = join(why, "the local output cache holds other audio than was recorded")
					break
				}
			}
			why = join(why, "not in the local output cache")
		}
	}
	if ref.Missing != "" && ref.Path == "" {
		why = ref.Missing // the caller's reason says it all (made by apply)
	}
	if why == "" {
		why = "not available"
	}
	return "", nil, why
}

// join adds a reason to another.
func join(why, more string) string {
	if why == "" {
		return more
	}
	return why + "; " + more
}

// copyChecked copies the file p into dst, failing unless its content has
// the SHA-256 sha (the output was changed since it was recorded).
func copyChecked(dst *os.File, p, sha string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(dst, h), f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return fmt.Errorf("%s was changed since it was recorded", p)
	}
	return nil
}

// place copies the audio into the audio directory under its content's
// name, gives headerless audio a WAV header, and reads it for its
// waveform, duration and (when asked) loudness.
func (m *media) place(ctx context.Context, sha string, copyTo func(*os.File) error, ref audioRef) *clip {
	if !cache.ValidKey(sha) {
		return &clip{Note: "recorded with an invalid sha256"}
	}
	base := sha[:16]
	err := owned.WriteFileAt(m.out, base, 0o644, false, func(w io.Writer) error {
		f, ok := w.(*os.File)
		if !ok {
			return errors.New("not a file")
		}
		return copyTo(f)
	})
	if err != nil {
		return &clip{Note: "could not be copied: " + err.Error()}
	}
	raw := filepath.Join(m.out.Name(), base)
	defer os.Remove(raw)
	name, err := m.playable(raw, base, ref.Raw)
	if err != nil {
		return &clip{Note: err.Error()}
	}
	c := &clip{Src: audioDir + "/" + name}
	path := filepath.Join(m.out.Name(), name)
	if st, err := os.Stat(path); err == nil {
		c.Size = st.Size()
	}
	if info, err := audio.Probe(path); err == nil {
		c.Duration = info.Duration.Seconds()
	}
	m.analyse(ctx, path, base, c)
	return c
}

// playable renames the copy raw to a name a browser plays by: its
// container's extension, or a WAV written from headerless audio.
func (m *media) playable(raw, base string, config map[string]any) (string, error) {
	f, err := os.Open(raw)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, audio.SniffLen)
	n, _ := io.ReadFull(f, head)
	c := audio.Sniff(head[:n])
	switch c {
	case audio.ContainerWAV, audio.ContainerMP3, audio.ContainerOgg, audio.ContainerFLAC, audio.ContainerWebM:
		name := base + "." + string(c)
		if c == audio.ContainerWebM {
			name = base + ".webm"
		}
		return name, os.Rename(raw, filepath.Join(m.out.Name(), name))
	}
	format, err := contract.RecordedRawFormat(config)
	if err != nil || format == nil || format.Validate() != nil {
		return "", fmt.Errorf("%s audio that the report cannot play", c)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	name := base + ".wav"
	return name, owned.WriteFileAt(m.out, name, 0o644, false, func(w io.Writer) error { return toWAV(w, f, *format) })
}

// toWAV writes headerless audio in format f as a 16-bit PCM WAV file (a
// browser plays mu-law and A-law in WAV unevenly; 16-bit PCM everywhere).
func toWAV(w io.Writer, r io.Reader, f audio.Format) error {
	st, err := r.(*os.File).Stat()
	if err != nil {
		return err
	}
	frame := int64(f.Channels * f.BitsPerSample / 8)
	frames := st.Size() / frame
	out := audio.Format{SampleRate: f.SampleRate, Channels: f.Channels, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(w, out, frames*int64(out.Channels)*2); err != nil {
		return err
	}
	src, err := audio.NewSampleReader(bufio.NewReaderSize(io.LimitReader(r, frames*frame), 32<<10), f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	dst, err := audio.NewSampleWriter(bw, out)
	if err != nil {
		return err
	}
	buf := make([]float64, 4096*f.Channels)
	for {
		n, err := src.ReadSamples(buf)
		if werr := dst.WriteSamples(buf[:n]); werr != nil {
			return werr
		}
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
	}
}
