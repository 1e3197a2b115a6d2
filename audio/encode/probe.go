package encode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/voxform/voxform/deliver"
)

// Stream is what Probe learns of a file's first audio stream.
type Stream struct {
	// Container is deliver's name for it (mp3, mp4, ogg, wav) or else
	// ffmpeg's format name.
	Container string
	// Codec is ffmpeg's codec name: mp3, aac, opus, pcm_s16le, ...
	Codec string
	// SampleRate is the stream's rate as ffmpeg decodes it: an Opus
	// stream always decodes at 48000 Hz (its header's input rate aside).
	SampleRate int
	Channels   int
	// Bitrate is the codec's bits per second over the whole stream (the
	// packets' bytes over their duration; an MP3 of one frame bit rate
	// gives that rate); 0 when unknown.
	Bitrate int
	// BitrateMode is deliver.CBR when every MP3 frame has the same bit
	// rate (a Xing/Info tag frame aside) or every packet of another codec
	// the same size, deliver.VBR otherwise, "" for PCM.
	BitrateMode string
	Duration    time.Duration
	// Source says which tool described the stream: "ffprobe", or
	// "ffmpeg" when ffprobe is not on PATH and ffmpeg -i's description
	// was read instead.
	Source string
}

// maxProbeOutput bounds what a probe reads of ffprobe's or ffmpeg's
// description of a file.
const maxProbeOutput = 256 << 10

// Probe describes the first audio stream of path, any file ffmpeg reads
// (MP4/M4A/M4B above all, which voxform's own prober does not decode):
// with ffprobe when it is on PATH, else from ffmpeg -i's description;
// the bit rate and its mode from a scan of the packets (ffmpeg -f
// framecrc, streamed), and of MP3 frame headers in Go.
func (t *Tool) Probe(ctx context.Context, path string) (Stream, error) {
	describe := t.describeFFmpeg
	if t.FFprobe != "" {
		describe = t.describeFFprobe
	}
	s, err := describe(ctx, path)
	if err != nil {
		return Stream{}, err
	}
	if strings.HasPrefix(s.Codec, "pcm_") {
		return s, nil
	}
	p, err := t.scanPackets(ctx, path)
	if err != nil {
		return Stream{}, err
	}
	s.Bitrate, s.BitrateMode = p.bitrate(), p.mode()
	if s.Codec == deliver.CodecMP3 {
		rate, mode, err := mp3Mode(path)
		if err != nil {
			return Stream{}, err
		}
		s.BitrateMode = mode
		if mode == deliver.CBR {
			s.Bitrate = rate
		}
	}
	return s, nil
}

// containerOf names ffmpeg's demuxer names as deliver's containers.
func containerOf(format string) string {
	switch {
	case strings.Contains(format, "mp4"):
		return deliver.ContainerMP4
	case format == "mp3", format == "ogg", format == "wav":
		return format
	}
	return format
}

func (t *Tool) describeFFprobe(ctx context.Context, path string) (Stream, error) {
	out := &capped{max: maxProbeOutput}
	args := []string{"-v", "error", "-protocol_whitelist", "file,pipe", "-select_streams", "a:0",
		"-show_entries", "stream=codec_name,sample_rate,channels:format=format_name,duration", "-of", "json", "file:" + path}
	if err := run(ctx, job{what: "probe " + path, path: t.FFprobe, args: args, stdout: out, timeout: QueryTimeout}); err != nil {
		return Stream{}, err
	}
	var doc struct {
		Streams []struct {
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
		} `json:"streams"`
		Format struct {
			FormatName string `json:"format_name"`
			Duration   string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out.b, &doc); err != nil || out.cut {
		return Stream{}, fmt.Errorf("probe %s: read ffprobe's answer: %v (%d bytes)", path, err, len(out.b))
	}
	if len(doc.Streams) == 0 {
		return Stream{}, fmt.Errorf("probe %s: ffprobe finds no audio stream", path)
	}
	st := doc.Streams[0]
	rate, _ := strconv.Atoi(st.SampleRate)
	secs, _ := strconv.ParseFloat(doc.Format.Duration, 64)
	return Stream{Container: containerOf(doc.Format.FormatName), Codec: st.CodecName, SampleRate: rate,
		Channels: st.Channels, Duration: seconds(secs), Source: "ffprobe"}, nil
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

var (
	inputLine    = regexp.MustCompile(`(?m)^Input #0, ([^ ]+), from `)
	durationLine = regexp.MustCompile(`(?m)^\s+Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)`)
	// "Stream #0:0[0x1](hin): Audio: aac (LC) (mp4a / 0x6134706D), 44100 Hz, mono, fltp, 64 kb/s"
	audioLine = regexp.MustCompile(`(?m)^\s+Stream #0:\d+\S*: Audio: ([a-z0-9_]+)[^,\n]*, (\d+) Hz, ([^,\n]+)`)
)

// describeFFmpeg reads ffmpeg -i's description of path (on standard
// error; ffmpeg then exits with "At least one output file must be
// specified", which is expected).
func (t *Tool) describeFFmpeg(ctx context.Context, path string) (Stream, error) {
	info := &capped{max: maxProbeOutput}
	args := []string{"-nostdin", "-hide_banner", "-protocol_whitelist", "file,pipe", "-i", "file:" + path}
	err := run(ctx, job{what: "probe " + path, path: t.Path, args: args, stderr: info, timeout: QueryTimeout})
	text := string(info.b)
	in, a := inputLine.FindStringSubmatch(text), audioLine.FindStringSubmatch(text)
	if in == nil || a == nil {
		if err == nil {
			err = fmt.Errorf("probe %s: ffmpeg describes no audio stream", path)
		}
		return Stream{}, err
	}
	s := Stream{Container: containerOf(strings.TrimSuffix(in[1], ",")), Codec: a[1], Source: "ffmpeg"}
	s.SampleRate, _ = strconv.Atoi(a[2])
	s.Channels = channelsOf(strings.TrimSpace(a[3]))
	if d := durationLine.FindStringSubmatch(text); d != nil {
		h, _ := strconv.Atoi(d[1])
		m, _ := strconv.Atoi(d[2])
		sec, _ := strconv.ParseFloat(d[3], 64)
		s.Duration = seconds(float64(h*3600+m*60) + sec)
	}
	return s, nil
}

// channelsOf reads ffmpeg's channel layout name ("mono", "stereo", "5.1",
// "3 channels").
func channelsOf(layout string) int {
	switch layout {
	case "mono":
		return 1
	case "stereo":
		return 2
	}
	if n, rest, ok := strings.Cut(layout, " "); ok && strings.HasPrefix(rest, "channels") {
		c, _ := strconv.Atoi(n)
		return c
	}
	return 0
}

// packets is what a scan of a stream's packets found.
type packets struct {
	count, bytes int64
	ticks        int64 // summed durations in the time base
	tbNum, tbDen int64
	firstSize    int64
	sameSize     bool
	longest      int64 // the longest packet's duration
	end          int64 // the last packet's pts plus its duration
	rate         int64 // the stream's sample rate
}

// endSample is where the stream ends in samples, when its time base is
// one sample (MP4, Ogg): the container's own account of the end
// padding, which ffmpeg 5's AAC decoding does not trim.
func (p *packets) endSample() int64 {
	if p.tbNum == 1 && p.rate > 0 && p.tbDen == p.rate && p.end > 0 {
		return p.end
	}
	return 0
}

// bitrate is the packets' bytes over their duration; for packets all of
// one size, that size over a whole packet's duration (the first and last
// packets of Opus are trimmed: pre-skip and end padding).
func (p *packets) bitrate() int {
	if p.ticks <= 0 || p.tbNum <= 0 || p.tbDen <= 0 {
		return 0
	}
	bytes, ticks := float64(p.bytes), float64(p.ticks)
	if p.mode() == deliver.CBR && p.longest > 0 {
		bytes, ticks = float64(p.firstSize), float64(p.longest)
	}
	return int(math.Round(bytes * 8 * float64(p.tbDen) / (ticks * float64(p.tbNum))))
}

func (p *packets) mode() string {
	if p.sameSize && p.count > 0 {
		return deliver.CBR
	}
	return deliver.VBR
}

// scanPackets streams ffmpeg -f framecrc's line per packet of the first
// audio stream ("0, dts, pts, duration, size, crc"), keeping only sums.
func (t *Tool) scanPackets(ctx context.Context, path string) (*packets, error) {
	pr, pw := io.Pipe()
	p := &packets{sameSize: true}
	done := make(chan error, 1)
	go func() {
		err := p.read(pr)
		pr.CloseWithError(err)
		done <- err
	}()
	args := append(input(nil, "", "file:"+path), "-map", "0:a:0", "-c", "copy", "-f", "framecrc", "pipe:1")
	err := run(ctx, job{what: "scan the packets of " + path, path: t.Path, args: args, stdout: pw, timeout: t.timeout()})
	pw.Close()
	if rerr := <-done; err == nil && rerr != nil {
		err = fmt.Errorf("scan the packets of %s: %w", path, rerr)
	}
	return p, err
}

func (p *packets) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Bytes()
		if tb, ok := bytes.CutPrefix(line, []byte("#tb 0: ")); ok {
			num, den, _ := strings.Cut(string(tb), "/")
			p.tbNum, _ = strconv.ParseInt(num, 10, 64)
			p.tbDen, _ = strconv.ParseInt(den, 10, 64)
			continue
		}
		if r, ok := bytes.CutPrefix(line, []byte("#sample_rate 0: ")); ok {
			p.rate, _ = strconv.ParseInt(string(r), 10, 64)
			continue
		}
		f := strings.Split(string(line), ",")
		if len(f) < 5 || strings.HasPrefix(f[0], "#") || strings.TrimSpace(f[0]) != "0" {
			continue
		}
		pts, err0 := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
		dur, err1 := strconv.ParseInt(strings.TrimSpace(f[3]), 10, 64)
		size, err2 := strconv.ParseInt(strings.TrimSpace(f[4]), 10, 64)
		if err0 != nil || err1 != nil || err2 != nil {
			return fmt.Errorf("read ffmpeg's packet line %q", line)
		}
		if p.count == 0 {
			p.firstSize = size
		}
		p.sameSize = p.sameSize && size == p.firstSize
		p.count++
		p.bytes += size
		p.ticks += dur
		p.longest = max(p.longest, dur)
		p.end = max(p.end, pts+dur)
	}
	return sc.Err()
}
