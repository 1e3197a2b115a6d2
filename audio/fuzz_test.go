package audio_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/voxform/voxform/audio"
)

// FuzzReadWAVHeader checks that no input makes the WAV reader panic, and
// that whatever it accepts is a usable format whose header round-trips.
func FuzzReadWAVHeader(f *testing.F) {
	wavSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		fm, n, err := audio.ReadWAVHeader(r)
		if err != nil {
			return
		}
		if verr := fm.Validate(); verr != nil {
			t.Fatalf("accepted invalid format %+v: %v", fm, verr)
		}
		if n < audio.UnknownSize {
			t.Fatalf("data size %d", n)
		}
		if _, _, err := audio.ParseWAV(in); err != nil {
			t.Fatalf("ReadWAVHeader accepts, ParseWAV says %v", err)
		}
		sr, _ := audio.NewSampleReader(r, fm)
		buf := make([]float64, 64*fm.Channels)
		for {
			k, err := sr.ReadSamples(buf)
			for _, v := range buf[:k] {
				if v < -1 || v > 1 || v != v {
					t.Fatalf("sample %v out of range", v)
				}
			}
			if err != nil {
				break
			}
		}
		var out bytes.Buffer
		if err := audio.WriteWAVHeader(&out, fm, max(n, 0)%(1<<31)); err != nil {
			t.Fatalf("cannot rewrite accepted format %+v: %v", fm, err)
		}
	})
}

// FuzzProbe checks that no input makes the prober panic or report an
// implausible result.
func FuzzProbe(f *testing.F) {
	probeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		info, err := audio.ProbeReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		if info.Duration < 0 || info.SampleRate <= 0 || info.Channels < 0 || info.Bitrate < 0 {
			t.Fatalf("implausible info %+v", info)
		}
	})
}

// FuzzDecode checks that no input makes decoding (MP3 included) panic,
// and that decoded samples stay in range.
func FuzzDecode(f *testing.F) {
	probeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := audio.Decode(bytes.NewReader(in))
		if err != nil {
			return
		}
		buf := make([]float64, 256*d.Samples.Channels())
		for i := 0; i < 1000; i++ {
			n, err := d.Samples.ReadSamples(buf)
			for _, v := range buf[:n] {
				if v < -1 || v > 1 || v != v {
					t.Fatalf("sample %v out of range", v)
				}
			}
			if err != nil {
				return
			}
		}
	})
}

// FuzzWAVJoiner feeds pieces (in split at cut points) to a joiner and
// checks that whatever it accepts ends as one valid WAV file.
func FuzzWAVJoiner(f *testing.F) {
	a := wavPiece(f, mono16k, ramp(10, 0))
	f.Add(concat(a, a), uint16(len(a)), uint16(3))
	f.Add(concat(wavPiece(f, mono16k, nil), ramp(7, 1), a), uint16(44), uint16(51))
	f.Add(concat(withSizes(a, 0xFFFFFFFF, 0xFFFFFFFF), wavPiece(f, mulaw8k, ramp(3, 0))), uint16(len(a)), uint16(0))
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint16) {
		c1, c2 := min(int(cut1), len(in)), min(int(cut2), len(in))
		if c1 > c2 {
			c1, c2 = c2, c1
		}
		ws := &fileWS{}
		j, _ := audio.NewWAVJoiner(ws, nil)
		for _, p := range [][]byte{in[:c1], in[c1:c2], in[c2:]} {
			j.Add(p)
		}
		err := j.Close()
		if err != nil && !errors.Is(err, audio.ErrPartialFrame) {
			return
		}
		if verr := audio.ValidateReader(bytes.NewReader(ws.b), audio.ContainerWAV); verr != nil {
			t.Fatalf("joined file is invalid: %v", verr)
		}
	})
}
