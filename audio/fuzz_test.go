package audio_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/voxform/voxform/audio"
)

func wavSeeds(f *testing.F) {
	for _, fm := range []audio.Format{mono16k, stereo48, mulaw8k, alaw8k, float22, u8mono} {
		var b bytes.Buffer
		audio.WriteWAVHeader(&b, fm, 8)
		b.Write(ramp(8, 1))
		f.Add(b.Bytes())
	}
	f.Add(riff(100, chunk("fmt ", fmtBody(0xFFFE, 2, 48000, 24, extensible(1, 24)...)), chunk("LIST", []byte("abc")), chunk("data", ramp(6, 0))))
	f.Add(riff(0xFFFFFFFF, chunk("fmt ", fmtBody(7, 1, 8000, 8, 0, 0)), []byte("data\xff\xff\xff\xff\x01\x02")))
}

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

func probeSeeds(f *testing.F) {
	wavSeeds(f)
	f.Add(concat(xingFrame(10), mp3Frames(3)))
	f.Add(concat(vbriFrame(10), mp3Frames(2)))
	f.Add(concat([]byte("ID3\x03\x00\x00\x00\x00\x00\x04abcd"), mp3Frames(3), []byte("TAG")))
	f.Add([]byte("fLaC\x00\x00\x00\x22\x10\x00\x10\x00\x00\x00\x00\x00\x00\x00\x03\xe8\x00\xf0\x00\x00\x3e\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(oggSeed("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", 48000))
	f.Add(amrFile(3))
	f.Add(append([]byte{0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC}, make([]byte, 9)...))
	f.Add(oggSeed("\x01vorbis\x00\x00\x00\x00\x01\x44\xac\x00\x00\x00\x00\x00\x00\x00\xee\x02\x00\x00\x00\x00\x00\xb8\x01", 44100))
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

// oggSeed builds two Ogg pages: a header page with pkt and a last page
// with granule position granule.
func oggSeed(pkt string, granule uint64) []byte {
	page := func(typ byte, gran uint64, seq uint32, body []byte) []byte {
		b := []byte("OggS\x00")
		b = append(b, typ)
		b = append(b, byte(gran), byte(gran>>8), byte(gran>>16), byte(gran>>24), byte(gran>>32), byte(gran>>40), byte(gran>>48), byte(gran>>56))
		b = append(b, 1, 0, 0, 0, byte(seq), 0, 0, 0, 0, 0, 0, 0, 1, byte(len(body)))
		return append(b, body...)
	}
	return concat(page(2, 0, 0, []byte(pkt)), page(4, granule, 1, []byte("audio")))
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
