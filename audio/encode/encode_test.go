package encode_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/audio/internal/mp3"
	"github.com/voxform/voxform/deliver"
)

// encodings are the cases every encoder test runs: each codec, each
// mode, mono and stereo, more than one rate.
var encodings = []struct {
	name string
	e    deliver.Encoding
	ext  string
	// ffprobe's view: Opus always decodes at 48 kHz.
	probeRate int
}{
	{"mp3 cbr", deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 192000}, "mp3", 44100},
	{"mp3 cbr stereo 22k", deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 22050, Channels: 2, BitrateMode: "cbr", Bitrate: 64000}, "mp3", 22050},
	{"mp3 vbr", deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 48000, Channels: 1, BitrateMode: "vbr", Bitrate: 128000}, "mp3", 48000},
	{"aac", deliver.Encoding{Container: "mp4", Codec: "aac", SampleRate: 44100, Channels: 2, BitrateMode: "vbr", Bitrate: 128000}, "m4a", 44100},
	{"opus cbr", deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 1, BitrateMode: "cbr", Bitrate: 64000}, "ogg", 48000},
	{"opus vbr 16k", deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 16000, Channels: 2, BitrateMode: "vbr", Bitrate: 32000}, "ogg", 48000},
}

// TestEncode: for each codec and mode, encoding twice gives the same
// bytes whatever the output's name (bit-exact); ffprobe reads the
// requested codec, rate and channels; Probe finds the requested bit rate
// (exact for CBR, an average within 10 % for VBR) and mode; nothing of
// the input's tags (a LIST INFO title) nor of ffmpeg's version reaches
// the output.
func TestEncode(t *testing.T) {
	tool := findTool(t)
	in := toneWAV(t, 48000, 2, 48000, leakyInfo)
	if p := ffprobe(t, in); p.Format.Tags["title"] != "LEAKEDTAG" {
		t.Fatalf("the test's WAV has no title tag for ffmpeg: %v", p.Format.Tags)
	}
	for _, c := range encodings {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a."+c.ext), filepath.Join(dir, "other name."+c.ext)
			for _, out := range []string{a, b} {
				if err := tool.Encode(context.Background(), in, c.e, out); err != nil {
					t.Fatal(err)
				}
			}
			if sa, sb := sum(t, a), sum(t, b); sa != sb {
				t.Errorf("two encodings differ: %s and %s", sa, sb)
			}
			checkFormat(t, tool, a, c.e, c.probeRate)
			checkNoLeak(t, a)
		})
	}
}

var versionTag = regexp.MustCompile(`Lav[cf] ?[0-9]+\.`)

func checkFormat(t *testing.T, tool *encode.Tool, path string, e deliver.Encoding, probeRate int) {
	t.Helper()
	p := ffprobe(t, path)
	if len(p.Streams) != 1 {
		t.Fatalf("%d streams, want 1", len(p.Streams))
	}
	s := p.Streams[0]
	if s.CodecName != e.Codec || s.SampleRate != strconv.Itoa(probeRate) || s.Channels != e.Channels {
		t.Errorf("ffprobe: %s %s Hz %d ch, want %s %d Hz %d ch", s.CodecName, s.SampleRate, s.Channels, e.Codec, probeRate, e.Channels)
	}
	if s.CodecName == "mp3" && e.BitrateMode == "cbr" && s.BitRate != strconv.Itoa(e.Bitrate) {
		t.Errorf("ffprobe's bit rate %s, want %d", s.BitRate, e.Bitrate)
	}
	if br, err := strconv.Atoi(s.BitRate); err == nil && (br-e.Bitrate > e.Bitrate/10 || e.Bitrate-br > e.Bitrate/10) {
		t.Errorf("ffprobe's bit rate %d, want %d within 10%%", br, e.Bitrate)
	}
	st, err := tool.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if st.BitrateMode != e.BitrateMode {
		t.Errorf("bit rate mode %q, want %q", st.BitrateMode, e.BitrateMode)
	}
	if e.BitrateMode == "cbr" && st.Bitrate != e.Bitrate {
		t.Errorf("bit rate %d, want exactly %d", st.Bitrate, e.Bitrate)
	}
	if d := st.Bitrate - e.Bitrate; d > e.Bitrate/10 || -d > e.Bitrate/10 {
		t.Errorf("bit rate %d, want %d within 10%%", st.Bitrate, e.Bitrate)
	}
}

// mp3Bitrates reads the bit rate of every frame of an MP3 file,
// including a Xing/Info frame.
func mp3Bitrates(t *testing.T, path string) map[int]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames := mp3.NewFrames(bufio.NewReaderSize(f, 64<<10))
	rates := map[int]int{}
	for {
		h, _, err := frames.Next()
		if err != nil {
			break
		}
		rates[h.Bitrate]++
	}
	return rates
}

// TestEncodeMP3CBRFramesAllShareTheBitRate: a CBR MP3's every frame, the
// Info frame too, is at the requested bit rate (what ACX's checks read);
// a VBR one's are not.
func TestEncodeMP3CBRFramesAllShareTheBitRate(t *testing.T) {
	tool := findTool(t)
	in := toneWAV(t, 44100, 1, 88200)
	e := deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 192000}
	out := filepath.Join(t.TempDir(), "cbr.mp3")
	if err := tool.Encode(context.Background(), in, e, out); err != nil {
		t.Fatal(err)
	}
	if rates := mp3Bitrates(t, out); len(rates) != 1 || rates[192000] < 70 {
		t.Errorf("frames by bit rate %v, want all (about 77) at 192000", rates)
	}
	e.BitrateMode = "vbr"
	if err := tool.Encode(context.Background(), in, e, out); err != nil {
		t.Fatal(err)
	}
	if rates := mp3Bitrates(t, out); len(rates) < 2 {
		t.Errorf("VBR frames by bit rate %v, want more than one rate", rates)
	}
}

// TestCheckEncoding: what ffmpeg cannot deliver exactly as stated is
// refused before running it, naming the bound.
func TestCheckEncoding(t *testing.T) {
	mp3 := func(rate, bps int) deliver.Encoding {
		return deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: rate, Channels: 1, BitrateMode: "cbr", Bitrate: bps}
	}
	aac := deliver.Encoding{Container: "mp4", Codec: "aac", SampleRate: 8000, Channels: 1, BitrateMode: "vbr", Bitrate: 64000}
	aacCBR := deliver.Encoding{Container: "mp4", Codec: "aac", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 64000}
	for _, c := range []struct {
		e    deliver.Encoding
		want string
	}{
		{mp3(44100, 192000), ""},
		{mp3(44100, 200000), "200000 bit/s is not an MP3 bit rate at 44100 Hz"},
		{mp3(8000, 96000), "96000 bit/s is not an MP3 bit rate at 8000 Hz"},
		{mp3(22050, 192000), "192000 bit/s is not an MP3 bit rate at 22050 Hz"},
		{mp3(7000, 32000), "7000 Hz is not an MP3 sample rate"},
		{aac, "64000 bit/s is over AAC's 48000 bit/s"},
		{aacCBR, "no constant bit rate"},
		{deliver.Encoding{Codec: "pcm_s16le"}, `codec "pcm_s16le" is not one ffmpeg encodes`},
	} {
		err := encode.CheckEncoding(c.e)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.e, err, c.want)
		}
	}
}

// TestMP3RateTableMatchesLAME: the highest bit rate CheckEncoding allows
// at each MP3 sample rate is what LAME writes there, frame for frame (a
// rate it would change silently is refused, one it keeps is not).
func TestMP3RateTableMatchesLAME(t *testing.T) {
	tool := findTool(t)
	for _, c := range []struct{ rate, max int }{{8000, 64000}, {11025, 64000}, {12000, 64000}, {16000, 160000}, {24000, 160000}, {32000, 320000}, {48000, 320000}} {
		e := deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: c.rate, Channels: 1, BitrateMode: "cbr", Bitrate: c.max}
		out := filepath.Join(t.TempDir(), "max.mp3")
		if err := tool.Encode(context.Background(), toneWAV(t, c.rate, 1, int64(c.rate/4)), e, out); err != nil {
			t.Fatal(err)
		}
		if rates := mp3Bitrates(t, out); len(rates) != 1 || rates[c.max] == 0 {
			t.Errorf("%d Hz at %d bit/s: frames by bit rate %v", c.rate, c.max, rates)
		}
	}
}

// TestIdentityCoversWhatChangesTheBytes: ffmpeg's version, its
// libraries, the bit-exact flags, the encoder, rate, channels, bit rate
// and mode are all named; encodings that differ have different
// identities.
func TestIdentityCoversWhatChangesTheBytes(t *testing.T) {
	tool := findTool(t)
	out, err := exec.Command(tool.Path, "-version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
	if len(first) < 3 || tool.Version != first[2] {
		t.Errorf("version %q, want %q of %q", tool.Version, first[2], first)
	}
	seen := map[string]string{}
	for _, c := range encodings {
		id := tool.Identity(c.e)
		for _, want := range []string{"ffmpeg " + tool.Version, "libavcodec ", "libavformat ", "+bitexact", "-map_metadata -1",
			"-threads 1", strconv.Itoa(c.e.Bitrate), strconv.Itoa(c.e.SampleRate)} {
			if !strings.Contains(id, want) {
				t.Errorf("%s: identity %q lacks %q", c.name, id, want)
			}
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%s and %s share the identity %q", c.name, other, id)
		}
		seen[id] = c.name
	}
	for _, b := range []struct {
		container string
		bitrate   int
	}{{"mp4", 64000}, {"mp4", 96000}, {"mp3", 192000}, {"mp3", 128000}} {
		id := tool.BookIdentity(b.container, b.bitrate)
		for _, want := range []string{"ffmpeg " + tool.Version, "libavcodec ", "+bitexact", strconv.Itoa(b.bitrate)} {
			if !strings.Contains(id, want) {
				t.Errorf("book identity %q lacks %q", id, want)
			}
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%v and %s share the identity %q", b, other, id)
		}
		seen[id] = b.container
	}
}
