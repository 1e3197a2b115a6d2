package executor

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
)

// TestConvertCutRecording: a WAV recording whose data chunk holds less
// than its header declares (cut short, or a header declaring 2 GiB over
// 8 KB) is not converted short: the conversion fails naming both sizes;
// the whole recording converts.
func TestConvertCutRecording(t *testing.T) {
	from := audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, from, 32000); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, 32000))
	whole := b.Bytes()
	huge := append([]byte(nil), whole[:44+8192]...)
	binary.LittleEndian.PutUint32(huge[40:44], 2<<30)
	format, _ := contract.Resolve(&contract.AudioConfig{Container: "raw", SampleRate: 16000})
	for _, tt := range []struct {
		name string
		in   []byte
		want string // "" for none
	}{
		{"whole", whole, ""},
		{"cut", whole[:20000], "declares 32000 bytes, the recording holds 19956"},
		{"2 GiB declared", huge, "declares 2147483648 bytes, the recording holds 8192"},
	} {
		info, err := audio.ProbeReader(bytes.NewReader(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		conv, err := contract.CheckRecording(info, format, false)
		if err != nil || conv.Copy {
			t.Fatalf("%s: want a lossless conversion, got %+v, %v", tt.name, conv, err)
		}
		out, err := os.Create(filepath.Join(t.TempDir(), "out.raw"))
		if err != nil {
			t.Fatal(err)
		}
		err = convertRecording(out, bytes.NewReader(tt.in), conv, format)
		out.Close()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
