package encode

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/voxform/voxform/deliver"
)

// bitexact are the flags that make ffmpeg's bytes a function of its
// input alone: no "Lavf..." encoder tags, no creation time, a fixed Ogg
// serial number (-fflags +bitexact); no codec version strings
// (-flags:a +bitexact); no metadata or chapters copied from the input
// (-map_metadata -1, -map_chapters -1); one thread.
var bitexact = []string{"-map_metadata", "-1", "-map_chapters", "-1",
	"-fflags", "+bitexact", "-flags:a", "+bitexact", "-threads", "1"}

// mp3Rates are the bit rates (kbit/s) LAME writes as constant-rate
// frames at each family of sample rates: MPEG-1 (ISO/IEC 11172-3),
// MPEG-2 (ISO/IEC 13818-3) and MPEG-2.5, where LAME stops at 64.
var mp3Rates = []struct {
	rates []int
	kbps  []int
}{
	{[]int{32000, 44100, 48000}, []int{32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}},
	{[]int{16000, 22050, 24000}, []int{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}},
	{[]int{8000, 11025, 12000}, []int{8, 16, 24, 32, 40, 48, 56, 64}},
}

// CheckEncoding says whether ffmpeg can deliver e exactly as stated,
// beyond what deliver.Validate checks: an MP3 bit rate must be one of
// the frame bit rates at its sample rate (LAME would silently pick
// another), an AAC bit rate must fit the codec's 6144 bits per channel
// and frame, and AAC has no constant bit rate (ffmpeg's AAC encoder
// aims at an average: ask for vbr).
func CheckEncoding(e deliver.Encoding) error {
	switch e.Codec {
	case deliver.CodecMP3:
		if err := checkMP3Rate(e); err != nil {
			return err
		}
	case deliver.CodecAAC:
		if e.BitrateMode == deliver.CBR {
			return fmt.Errorf("encode aac: ffmpeg's AAC encoder has no constant bit rate (AAC-LC frames vary in size); use bitrate_mode vbr for an average of %d bit/s", e.Bitrate)
		}
		if max := 6 * e.Channels * e.SampleRate; e.Bitrate > max {
			return fmt.Errorf("encode aac: %d bit/s is over AAC's %d bit/s for %d channel(s) at %d Hz (6144 bits a channel and frame)", e.Bitrate, max, e.Channels, e.SampleRate)
		}
	case deliver.CodecOpus:
	default:
		return fmt.Errorf("encode: codec %q is not one ffmpeg encodes for voxform (mp3, aac, opus)", e.Codec)
	}
	if e.Channels != 1 && e.Channels != 2 {
		return fmt.Errorf("encode %s: %d channels: want 1 or 2", e.Codec, e.Channels)
	}
	if e.BitrateMode != deliver.CBR && e.BitrateMode != deliver.VBR {
		return fmt.Errorf("encode %s: bit rate mode %q: want cbr or vbr", e.Codec, e.BitrateMode)
	}
	return nil
}

func checkMP3Rate(e deliver.Encoding) error {
	for _, g := range mp3Rates {
		if !slices.Contains(g.rates, e.SampleRate) {
			continue
		}
		if e.Bitrate%1000 != 0 || !slices.Contains(g.kbps, e.Bitrate/1000) {
			return fmt.Errorf("encode mp3: %d bit/s is not an MP3 bit rate at %d Hz (kbit/s: %v)", e.Bitrate, e.SampleRate, g.kbps)
		}
		return nil
	}
	return fmt.Errorf("encode mp3: %d Hz is not an MP3 sample rate (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)", e.SampleRate)
}

// outputArgs are the arguments after the input that make the bytes of
// e: the bit-exact flags, the rate and channels, the encoder and its
// mode, the muxer. Identity is built from them, so it covers every flag.
func outputArgs(e deliver.Encoding) []string {
	args := append([]string{"-map", "0:a:0"}, bitexact...)
	args = append(args, "-ar", strconv.Itoa(e.SampleRate), "-ac", strconv.Itoa(e.Channels),
		"-c:a", encoderOf[e.Codec], "-b:a", strconv.Itoa(e.Bitrate))
	switch e.Codec {
	case deliver.CodecMP3:
		if e.BitrateMode == deliver.VBR {
			args = append(args, "-abr", "1") // LAME's average bit rate: frames vary around -b:a
		}
		return append(args, "-id3v2_version", "0", "-write_xing", "1", "-f", "mp3")
	case deliver.CodecAAC:
		return append(args, "-movflags", "+faststart", "-f", "ipod")
	default: // Opus
		vbr := "off" // hard CBR: every packet the same size
		if e.BitrateMode == deliver.VBR {
			vbr = "on"
		}
		return append(args, "-vbr", vbr, "-application", "audio", "-f", "ogg")
	}
}

// Identity names everything that makes the bytes of an encoding to e:
// ffmpeg's version and libraries and every output flag. (ffmpeg does not
// report LAME's or libopus's own versions; the ffmpeg build stands for
// them.) A delivered output's fingerprint covers it.
func (t *Tool) Identity(e deliver.Encoding) string {
	return fmt.Sprintf("ffmpeg %s (%s) %s", t.Version, t.Libraries, strings.Join(outputArgs(e), " "))
}

// Encode encodes the PCM WAV file wavIn to e into out, bit-exactly: the
// same input and encoding give the same bytes. Only out is written
// (ffmpeg overwrites it); on any failure, a timeout or ctx's end, out is
// removed.
func (t *Tool) Encode(ctx context.Context, wavIn string, e deliver.Encoding, out string) (err error) {
	if err := CheckEncoding(e); err != nil {
		return err
	}
	if err := t.Supports(e.Codec); err != nil {
		return err
	}
	defer removeOnError(out, &err)
	args := append(append(input(nil, "wav", "file:"+wavIn), outputArgs(e)...), "file:"+out)
	return run(ctx, job{what: "encode " + e.Codec, path: t.Path, args: args, timeout: t.timeout()})
}

// input appends an input to args, which start with the options of every
// run when nil: no terminal, no banner, errors only, overwrite the
// output (the caller's fresh temp path). Each input is read from local
// files and pipes only (no URL a crafted playlist could name), with the
// demuxer format when it is not "".
func input(args []string, format, path string) []string {
	if args == nil {
		args = []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
	}
	args = append(args, "-protocol_whitelist", "file,pipe")
	if format != "" {
		args = append(args, "-f", format)
	}
	return append(args, "-i", path)
}
