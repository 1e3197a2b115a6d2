package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/voxform/voxform/audio"
)

// errNoFFmpeg says a container needs ffmpeg and it is not installed.
var errNoFFmpeg = errors.New("ffmpeg not found")

// pcmFormat is the audio.Format of the WAV, raw or G.711 audio f carries.
func (f outFormat) pcmFormat() audio.Format {
	af := audio.Format{SampleRate: f.Rate, Channels: f.Channels, BitsPerSample: 8 * f.Width, Encoding: audio.PCM}
	switch f.Container {
	case "mulaw":
		af.BitsPerSample, af.Encoding = 8, audio.MuLaw
	case "alaw":
		af.BitsPerSample, af.Encoding = 8, audio.ALaw
	}
	return af
}

// appendFrames converts mono samples into interleaved output frames of f,
// appending to dst: linear PCM of f.Width bytes (8-bit unsigned as in WAV),
// or G.711 bytes, each sample repeated on every channel.
func appendFrames(dst []byte, samples []int16, f outFormat) []byte {
	if f.Container != "mulaw" && f.Container != "alaw" && f.Width == 2 && f.Channels == 1 {
		for _, s := range samples {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(s))
		}
		return dst
	}
	var b [4]byte
	for _, s := range samples {
		var k int
		switch {
		case f.Container == "mulaw":
			b[0], k = audio.MuLawEncode(s), 1
		case f.Container == "alaw":
			b[0], k = audio.ALawEncode(s), 1
		case f.Width == 1:
			b[0], k = byte(int(s)>>8+128), 1
		case f.Width == 2:
			binary.LittleEndian.PutUint16(b[:], uint16(s))
			k = 2
		case f.Width == 3:
			v := uint32(int32(s) << 8)
			b[0], b[1], b[2], k = byte(v), byte(v>>8), byte(v>>16), 3
		default:
			binary.LittleEndian.PutUint32(b[:], uint32(int32(s)<<16))
			k = 4
		}
		for c := 0; c < f.Channels; c++ {
			dst = append(dst, b[:k]...)
		}
	}
	return dst
}

// pcmReader reads a source as headerless frames of f.
type pcmReader struct {
	src     pcmSource
	f       outFormat
	samples []int16
	frames  []byte // reused for every read
	pending []byte // what is left of frames
	err     error
	sum     *summer // hashes what is read (a speech fault's audio), or nil
}

func newPCMReader(src pcmSource, f outFormat) *pcmReader {
	return &pcmReader{src: src, f: f}
}

// Size is the number of bytes the reader yields.
func (p *pcmReader) Size() int64 { return p.src.Total() * int64(p.f.frameBytes()) }

func (p *pcmReader) Read(b []byte) (int, error) {
	for len(p.pending) == 0 {
		if p.err != nil {
			if p.sum != nil && p.err == io.EOF {
				p.sum.end()
			}
			return 0, p.err
		}
		n := max(1, len(b)/p.f.frameBytes())
		if cap(p.samples) < n {
			p.samples = make([]int16, n)
		}
		k, err := p.src.Read(p.samples[:n])
		p.frames = appendFrames(p.frames[:0], p.samples[:k], p.f)
		p.pending = p.frames
		p.err = err
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	if p.sum != nil {
		p.sum.add(b[:n])
	}
	return n, nil
}

// wavHeader is the header of a WAV file of f holding dataBytes.
func wavHeader(f outFormat, dataBytes int64) []byte {
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, f.pcmFormat(), dataBytes); err != nil {
		panic(fmt.Sprintf("synth: wav header for a validated format: %v", err)) // formats are validated first
	}
	return b.Bytes()
}

// encoded is a synthesis in its container.
type encoded struct {
	io.Reader
	size  int64 // -1 when not known before the end (mp3, ogg)
	data  int64 // wav: the audio bytes after the header (pad byte excluded)
	close func() error
}

func (e *encoded) Close() error { return e.close() }

// encode wraps src in f's container. mp3 and ogg are encoded by an ffmpeg
// subprocess reading the samples as a stream.
func encode(ctx context.Context, src pcmSource, f outFormat) (*encoded, error) {
	switch f.Container {
	case "mp3", "ogg":
		return ffmpegEncode(ctx, src, f)
	}
	pr := newPCMReader(src, f)
	if f.Container != "wav" {
		return &encoded{Reader: pr, size: pr.Size(), close: src.Close}, nil
	}
	hdr := wavHeader(f, pr.Size())
	pad := pr.Size() & 1 // RIFF chunks are word-aligned: odd data gets a pad byte
	return &encoded{
		Reader: io.MultiReader(bytes.NewReader(hdr), pr, bytes.NewReader(make([]byte, pad))),
		size:   int64(len(hdr)) + pr.Size() + pad,
		data:   pr.Size(),
		close:  src.Close,
	}, nil
}

// ffmpegArgs are the encoder arguments; bitexact keeps output identical
// for identical input (no version string, fixed Ogg serial number).
func ffmpegArgs(f outFormat) []string {
	args := []string{"-hide_banner", "-nostdin", "-loglevel", "error",
		"-f", "s16le", "-ar", strconv.Itoa(f.Rate), "-ac", "1", "-i", "pipe:0",
		"-ac", strconv.Itoa(f.Channels), "-fflags", "+bitexact", "-flags:a", "+bitexact"}
	if f.Container == "mp3" {
		return append(args, "-c:a", "libmp3lame", "-b:a", f.Bitrate, "-f", "mp3", "pipe:1")
	}
	return append(args, "-c:a", "libopus", "-f", "ogg", "pipe:1")
}

func ffmpegEncode(ctx context.Context, src pcmSource, f outFormat) (*encoded, error) {
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		src.Close()
		return nil, errNoFFmpeg
	}
	cmd := exec.CommandContext(ctx, path, ffmpegArgs(f)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		src.Close()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		src.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		src.Close()
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	mono := outFormat{Container: "raw", Rate: f.Rate, Channels: 1, Width: 2}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		_, _ = io.Copy(in, newPCMReader(src, mono))
		in.Close()
	}()
	r := &ffmpegReader{out: out, cmd: cmd, stderr: &stderr}
	return &encoded{Reader: r, size: -1, close: func() error {
		_ = cmd.Process.Kill()
		r.wait()
		<-fed
		return src.Close()
	}}, nil
}

// ffmpegReader reads ffmpeg's output and turns a failed exit into an error
// at the end instead of a short, silent EOF.
type ffmpegReader struct {
	out    io.ReadCloser
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	waited bool
	err    error
}

func (r *ffmpegReader) Read(p []byte) (int, error) {
	if r.waited {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n, err := r.out.Read(p)
	if err == io.EOF {
		if werr := r.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (r *ffmpegReader) wait() error {
	if !r.waited {
		r.waited = true
		if err := r.cmd.Wait(); err != nil {
			r.err = fmt.Errorf("ffmpeg: %v: %s", err, strings.TrimSpace(r.stderr.String()))
		}
	}
	return r.err
}
