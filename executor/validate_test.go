package executor

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/transcript"
)

// leftovers lists the files under dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A headerless output that is not a whole number of frames of the
// requested format, is empty, or carries a container header is refused
// before the rename: nothing lands at the output path, no temporary file
// stays.
func TestRawAudioOutputValidatedBeforeRename(t *testing.T) {
	var wav strings.Builder
	audio.WriteWAVHeader(&wav, audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}, 4)
	pcm16 := format(&contract.AudioConfig{Container: "raw", SampleRate: 16000})
	stereo := format(&contract.AudioConfig{Container: "raw", SampleRate: 16000, NumChannels: 2})
	mulaw := format(&contract.AudioConfig{Container: "mulaw"})
	for _, c := range []struct {
		name string
		cfg  contract.Format
		data string
		ok   bool
	}{
		{"pcm whole frames", pcm16, "\x01\x00\x02\x00", true},
		{"pcm half a frame", pcm16, "\x01\x00\x02", false},
		{"stereo pcm one sample short", stereo, "\x01\x00\x02\x00\x03\x00", false},
		{"stereo pcm whole frames", stereo, "\x01\x00\x02\x00\x03\x00\x04\x00", true},
		{"empty pcm", pcm16, "", false},
		{"mulaw any length", mulaw, "\xff\x7f\x00", true},
		{"empty mulaw", mulaw, "", false},
		{"a wav header in raw output", pcm16, wav.String() + "\x00\x00\x00\x00", false},
		// Headerless audio may start like an MP3 or AAC frame: faint
		// mu-law and small negative s16 samples do.
		{"mulaw starting like an aac frame", mulaw, "\xff\xf9\x50\x80\x1f\xfc\xff\xfe", true},
		{"pcm starting like an mp3 frame", pcm16, "\xff\xfb\x90\x64\x00\x00", true},
		{"raw pcm_s16le", format(&contract.AudioConfig{Container: "raw", Encoding: "pcm_s16le", SampleRate: 16000}), "\x01\x00\x02\x00", true},
		{"raw pcm_s16le half a frame", format(&contract.AudioConfig{Container: "raw", Encoding: "pcm_s16le", SampleRate: 16000}), "\x01\x00\x02", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			o, err := createOutput(dir, "out/a.raw")
			if err != nil {
				t.Fatal(err)
			}
			o.Write([]byte(c.data))
			_, err = o.Commit(audioValidator(c.cfg))
			if (err == nil) != c.ok {
				t.Fatalf("commit: %v, want ok=%v", err, c.ok)
			}
			files := leftovers(t, dir)
			if c.ok && (len(files) != 1 || !strings.HasSuffix(files[0], "out/a.raw")) {
				t.Errorf("files %v", files)
			}
			if !c.ok && len(files) != 0 {
				t.Errorf("a refused output left %v", files)
			}
		})
	}
}

// A WAV output whose header disagrees with its size, or with the requested
// rate, is refused.
func TestWAVOutputValidatedBeforeRename(t *testing.T) {
	cfg := format(&contract.AudioConfig{SampleRate: 16000})
	write := func(f audio.Format, frames int, extra string) error {
		dir := t.TempDir()
		o, _ := createOutput(dir, "a.wav")
		audio.WriteWAVHeader(o, f, int64(frames*f.BlockAlign()))
		o.Write(make([]byte, frames*f.BlockAlign()))
		o.Write([]byte(extra))
		_, err := o.Commit(audioValidator(cfg))
		if err != nil && len(leftovers(t, dir)) != 0 {
			t.Errorf("a refused wav left %v", leftovers(t, dir))
		}
		return err
	}
	good := audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	if err := write(good, 160, ""); err != nil {
		t.Fatalf("a good wav refused: %v", err)
	}
	if err := write(good, 160, "\x00\x00\x00"); err == nil {
		t.Error("a wav longer than its header says was accepted")
	}
	other := good
	other.SampleRate = 48000
	if err := write(other, 480, ""); err == nil {
		t.Error("a 48 kHz wav accepted for a 16 kHz request")
	}
}

// Transcript outputs are checked as a group before any is renamed into
// place: a json output that is not JSON leaves no output at all.
func TestBadTranscriptNeverLands(t *testing.T) {
	dir := t.TempDir()
	root, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws := &outputs{dir: dir, root: root}
	tr := &manifest.Transcription{Formats: []string{"json", "txt", "srt"},
		Outputs: map[string]string{"json": "out/a.json", "txt": "out/a.txt", "srt": "out/a.srt"}}
	a := &planner.Action{Desired: (&planner.Desired{}).WithDetails(planner.DesiredDetails{Transcription: tr})}
	segs := []transcript.Segment{{End: transcript.Seconds(1), Text: "नमस्ते"}}
	_, _, err = writeTranscripts(ws, a, func(w io.Writer) error { _, err := io.WriteString(w, `{"transcript": "cut`); return err }, segs, true)
	if err == nil {
		t.Fatal("a truncated json transcript was accepted")
	}
	if files := leftovers(t, dir); len(files) != 0 {
		t.Errorf("outputs after a refused transcript: %v", files)
	}
	outs, _, err := writeTranscripts(ws, a, func(w io.Writer) error {
		_, err := io.WriteString(w, `{"transcript": "नमस्ते"}`)
		return err
	}, segs, true)
	if err != nil || len(outs) != 3 {
		t.Fatalf("a good transcript: %v %v", outs, err)
	}
}

func TestTranscriptValidator(t *testing.T) {
	segs := []transcript.Segment{
		{Start: 0, End: transcript.Seconds(2), Text: "Good morning", Speaker: "Speaker 1"},
		{Start: transcript.Seconds(2), End: transcript.Seconds(3.5), Text: "Hi", Speaker: "Speaker 2"},
	}
	dir := t.TempDir()
	check := func(format, body string, hasText bool) error {
		p := filepath.Join(dir, "t."+format)
		os.WriteFile(p, []byte(body), 0o644)
		return transcriptValidator(format, hasText)(p)
	}
	for _, f := range []transcript.Format{transcript.TXT, transcript.SRT, transcript.VTT} {
		var b strings.Builder
		if err := transcript.RenderSlice(&b, f, segs, transcript.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := check(string(f), b.String(), true); err != nil {
			t.Errorf("rendered %s refused: %v\n%s", f, err, b.String())
		}
		if err := check(string(f), "", true); err == nil {
			t.Errorf("an empty %s accepted for a transcript with text", f)
		}
		var none strings.Builder
		transcript.RenderSlice(&none, f, nil, transcript.Options{})
		if err := check(string(f), none.String(), false); err != nil {
			t.Errorf("the %s of an empty transcript refused: %v", f, err)
		}
	}
	for _, c := range []struct{ format, body string }{
		{"json", `{"a": 1`},
		{"json", `{"a": 1} {"b": 2}`},
		{"json", ``},
		{"txt", "caf\xe9\n"},
		{"srt", "1\n00:00:00,000 --> 00:00:01,000\n"},                 // no text
		{"srt", "2\n00:00:00,000 --> 00:00:01,000\nhi\n\n"},           // numbered from 2
		{"srt", "1\n00:00:00.000 --> 00:00:01.000\nhi\n\n"},           // vtt timing
		{"srt", "1\n00:00:00,000 --> 00:00:01,000\nhi"},               // no final newline
		{"vtt", "1\n00:00:00.000 --> 00:00:01.000\nhi\n\n"},           // no header
		{"vtt", "WEBVTT\n\n1\n00:00:00,000 --> 00:00:01,000\nhi\n\n"}, // srt timing
		{"vtt", "WEBVTT\n\nnot a cue\n"},
	} {
		if err := check(c.format, c.body, true); err == nil {
			t.Errorf("%s %q accepted", c.format, c.body)
		}
	}
	for _, c := range []struct{ format, body string }{
		{"json", " [1, {\"a\": [true, null]}]\n"},
		{"json", `"just a string"`},
		{"vtt", "WEBVTT - a title\nKind: captions\n\n00:00:00.000 --> 00:00:01.000 align:start\nhi\n\n"},
	} {
		if err := check(c.format, c.body, true); err != nil {
			t.Errorf("%s %q refused: %v", c.format, c.body, err)
		}
	}
}

// format is the resolved format of c.
func format(c *contract.AudioConfig) contract.Format {
	f, _ := contract.Resolve(c)
	return f
}
