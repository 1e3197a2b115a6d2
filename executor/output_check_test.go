package executor

import (
	"io"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
)

// CommitWith's check reads the temporary file through the handle that
// wrote it: all of it, as it will be left (a header patched after a seek
// included), and nothing else.
func TestCommitWithReadsThroughTheHandle(t *testing.T) {
	o, err := createOutput(t.TempDir(), "out/a.raw")
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("0000abcd"))
	o.Seek(0, io.SeekStart)
	o.Write([]byte("1111"))
	var got string
	out, err := o.CommitWith(func(r io.ReaderAt, size int64) error {
		b, err := io.ReadAll(io.NewSectionReader(r, 0, size+10))
		got = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != "1111abcd" || out.Size != 8 {
		t.Errorf("the check read %q of an output of %d bytes, want %q", got, out.Size, "1111abcd")
	}
}

// Audio checked through the handle is refused as it is by path: nothing
// lands, no temporary file stays; CheckWith discards what it refuses.
func TestAudioCheckThroughTheHandle(t *testing.T) {
	var wav strings.Builder
	audio.WriteWAVHeader(&wav, audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}, 4)
	raw8k := format(&contract.AudioConfig{Container: "raw", SampleRate: 8000})
	wav8k := format(&contract.AudioConfig{Container: "wav", SampleRate: 8000})
	wav16k := format(&contract.AudioConfig{Container: "wav", SampleRate: 16000})
	for _, c := range []struct {
		name string
		cfg  contract.Format
		data string
		ok   bool
	}{
		{"raw whole frames", raw8k, "\x01\x00\x02\x00", true},
		{"raw half a frame", raw8k, "\x01\x00\x02", false},
		{"empty raw", raw8k, "", false},
		{"a wav header in raw output", raw8k, wav.String() + "\x00\x00\x00\x00", false},
		{"wav", wav8k, wav.String() + "\x00\x00\x00\x00", true},
		{"wav cut short", wav8k, wav.String() + "\x00\x00", false},
		{"wav of another rate", wav16k, wav.String() + "\x00\x00\x00\x00", false},
	} {
		for _, check := range []bool{false, true} {
			dir := t.TempDir()
			o, err := createOutput(dir, "out/a."+c.cfg.Container)
			if err != nil {
				t.Fatal(err)
			}
			o.Write([]byte(c.data))
			if check {
				if err = o.CheckWith(audioCheck(c.cfg)); (err == nil) != c.ok {
					t.Errorf("%s: CheckWith: %v, want ok=%v", c.name, err, c.ok)
				}
			}
			if err == nil {
				_, err = o.CommitWith(audioCheck(c.cfg))
			}
			if (err == nil) != c.ok {
				t.Errorf("%s (CheckWith first: %v): %v, want ok=%v", c.name, check, err, c.ok)
			}
			if files := leftovers(t, dir); !c.ok && len(files) != 0 {
				t.Errorf("%s: a refused output left %v", c.name, files)
			}
		}
	}
}
