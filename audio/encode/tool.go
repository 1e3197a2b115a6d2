package encode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/voxform/voxform/deliver"
)

// Bounds of a run of ffmpeg.
const (
	// DefaultTimeout bounds one encoding, decoding or book run when
	// Tool.Timeout is zero: a book of many hours encodes well within it.
	DefaultTimeout = time.Hour
	// QueryTimeout bounds the short runs: -version, -encoders, a probe.
	QueryTimeout = 30 * time.Second
	// MaxStderr is how much of ffmpeg's standard error is kept for an
	// error message.
	MaxStderr = 4 << 10
	// maxQueryOutput bounds the standard output of -version and -encoders.
	maxQueryOutput = 1 << 20
)

// Tool is ffmpeg as found on this machine.
type Tool struct {
	// Path is ffmpeg's path; Version the token after "ffmpeg version" in
	// its first line ("5.1.9-0+deb12u1", "7.1.1", "N-113000-g...").
	Path    string
	Version string
	// Libraries are the versions of the libraries that make the bytes
	// ("libavcodec 59.37.100 libavformat 59.27.100 ..."), from -version.
	Libraries string
	// FFprobe is ffprobe's path, or "" when it is not on PATH: Probe
	// then reads ffmpeg's description of its input instead.
	FFprobe string
	// Timeout bounds each encoding, decoding and book run; zero means
	// DefaultTimeout.
	Timeout time.Duration

	once     sync.Once
	encoders map[string]bool
	listErr  error
}

// ErrMissing is wrapped by the errors that say ffmpeg, ffprobe or one of
// ffmpeg's encoders is not on this machine.
var ErrMissing = errors.New("not installed")

// Find locates ffmpeg (and ffprobe, if present) on PATH and reads its
// version.
func Find() (*Tool, error) {
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, fmt.Errorf("find ffmpeg: ffmpeg is %w: it is not on PATH (install ffmpeg; it encodes MP3, AAC and Opus)", ErrMissing)
	}
	t := &Tool{Path: path}
	if p, err := exec.LookPath("ffprobe"); err == nil {
		t.FFprobe = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), QueryTimeout)
	defer cancel()
	out, err := t.query(ctx, "-version")
	if err != nil {
		return nil, fmt.Errorf("read ffmpeg's version: %w", err)
	}
	t.Version, t.Libraries = parseVersion(out)
	if t.Version == "" {
		return nil, fmt.Errorf("read ffmpeg's version: %s -version does not start with \"ffmpeg version\"", path)
	}
	return t, nil
}

// parseVersion reads the version token of the first line of ffmpeg
// -version and the versions of its libraries ("libavcodec  59. 37.100 /
// 59. 37.100" lines: the runtime version, after the slash).
func parseVersion(out []byte) (version, libs string) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	var ls []string
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "ffmpeg version "); ok && version == "" {
			version, _, _ = strings.Cut(f, " ")
			continue
		}
		name, rest, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || !strings.HasPrefix(name, "lib") {
			continue
		}
		if _, runtime, ok := strings.Cut(rest, "/"); ok {
			ls = append(ls, name+" "+strings.ReplaceAll(strings.TrimSpace(runtime), " ", ""))
		}
	}
	return version, strings.Join(ls, " ")
}

// encoderOf names ffmpeg's encoder for each codec voxform asks it for:
// LAME for MP3, ffmpeg's own AAC encoder, libopus for Opus.
var encoderOf = map[string]string{
	deliver.CodecMP3:  "libmp3lame",
	deliver.CodecAAC:  "aac",
	deliver.CodecOpus: "libopus",
}

// Supports says whether this ffmpeg has the encoder for codec (one of
// deliver's MP3, AAC, Opus); the error names what is missing. The list
// of encoders is read once.
func (t *Tool) Supports(codec string) error {
	name, ok := encoderOf[codec]
	if !ok {
		return fmt.Errorf("codec %q is not one ffmpeg encodes for voxform (mp3, aac, opus; PCM, mu-law and A-law WAV are voxform's own)", codec)
	}
	t.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), QueryTimeout)
		defer cancel()
		out, err := t.query(ctx, "-encoders")
		t.encoders, t.listErr = parseEncoders(out), err
	})
	if t.listErr != nil {
		return fmt.Errorf("list ffmpeg's encoders: %w", t.listErr)
	}
	if !t.encoders[name] {
		return fmt.Errorf("encode %s: ffmpeg %s (%s) has no %s encoder: it is %w (install an ffmpeg built with it)", codec, t.Version, t.Path, name, ErrMissing)
	}
	return nil
}

// parseEncoders reads the names of ffmpeg -encoders' lines (" A....D
// libmp3lame  libmp3lame MP3 ...") after the "------" line.
func parseEncoders(out []byte) map[string]bool {
	names := map[string]bool{}
	list := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && strings.HasPrefix(f[0], "---"):
			list = true
		case list && len(f) >= 2:
			names[f[1]] = true
		}
	}
	return names
}

func (t *Tool) timeout() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return DefaultTimeout
}
