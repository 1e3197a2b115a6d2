package audiotest

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/voxform/voxform/audio"
)

// Formats of the tests' WAV headers.
var (
	Mono16k  = audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	Stereo48 = audio.Format{SampleRate: 48000, Channels: 2, BitsPerSample: 24, Encoding: audio.PCM}
	MuLaw8k  = audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw}
	ALaw8k   = audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.ALaw}
	Float22  = audio.Format{SampleRate: 22050, Channels: 1, BitsPerSample: 32, Encoding: audio.Float}
	U8Mono   = audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.PCM}
)

// ProbeSeeds adds fuzz seeds of every container the prober reads: the
// WAV seeds, MP3 frames with Xing, VBRI and ID3 tags, FLAC, Ogg Opus and
// Vorbis, AMR and ADTS.
func ProbeSeeds(f *testing.F) {
	WAVSeeds(f)
	f.Add(Concat(XingFrame(10), MP3Frames(3)))
	f.Add(Concat(VBRIFrame(10), MP3Frames(2)))
	f.Add(Concat([]byte("ID3\x03\x00\x00\x00\x00\x00\x04abcd"), MP3Frames(3), []byte("TAG")))
	f.Add([]byte("fLaC\x00\x00\x00\x22\x10\x00\x10\x00\x00\x00\x00\x00\x00\x00\x03\xe8\x00\xf0\x00\x00\x3e\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(OggSeed("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", 48000))
	f.Add(AMRFile(3))
	f.Add(append([]byte{0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC}, make([]byte, 9)...))
	f.Add(OggSeed("\x01vorbis\x00\x00\x00\x00\x01\x44\xac\x00\x00\x00\x00\x00\x00\x00\xee\x02\x00\x00\x00\x00\x00\xb8\x01", 44100))
}

// WAVSeeds adds fuzz seeds of WAV files in every encoding, with an
// extensible fmt chunk, a LIST chunk and a streaming header.
func WAVSeeds(f *testing.F) {
	for _, fm := range []audio.Format{Mono16k, Stereo48, MuLaw8k, ALaw8k, Float22, U8Mono} {
		var b bytes.Buffer
		audio.WriteWAVHeader(&b, fm, 8)
		b.Write(Ramp(8, 1))
		f.Add(b.Bytes())
	}
	f.Add(RIFF(100, Chunk("fmt ", FmtBody(0xFFFE, 2, 48000, 24, Extensible(1, 24)...)), Chunk("LIST", []byte("abc")), Chunk("data", Ramp(6, 0))))
	f.Add(RIFF(0xFFFFFFFF, Chunk("fmt ", FmtBody(7, 1, 8000, 8, 0, 0)), []byte("data\xff\xff\xff\xff\x01\x02")))
}

// OggSeed builds two Ogg pages: a header page with pkt and a last page
// with granule position granule.
func OggSeed(pkt string, granule uint64) []byte {
	page := func(typ byte, gran uint64, seq uint32, body []byte) []byte {
		b := []byte("OggS\x00")
		b = append(b, typ)
		b = append(b, byte(gran), byte(gran>>8), byte(gran>>16), byte(gran>>24), byte(gran>>32), byte(gran>>40), byte(gran>>48), byte(gran>>56))
		b = append(b, 1, 0, 0, 0, byte(seq), 0, 0, 0, 0, 0, 0, 0, 1, byte(len(body)))
		return append(b, body...)
	}
	return Concat(page(2, 0, 0, []byte(pkt)), page(4, granule, 1, []byte("audio")))
}

// AMRFile builds an AMR-NB file of frames 12.2 kbit/s frames (type 7)
// with a NO_DATA frame (type 15) in the middle.
func AMRFile(frames int) []byte {
	b := []byte("#!AMR\n")
	for i := 0; i < frames; i++ {
		if i == frames/2 {
			b = append(b, 15<<3|0x04)
		}
		f := make([]byte, 32)
		f[0] = 7<<3 | 0x04
		b = append(b, f...)
	}
	return b
}

// MP3Frame is one silent MPEG-1 layer III frame, 128 kbit/s, 44.1 kHz,
// joint stereo, no padding: 417 bytes.
func MP3Frame() []byte {
	f := make([]byte, 417)
	copy(f, []byte{0xFF, 0xFB, 0x90, 0x44})
	return f
}

// MP3Frames is n MP3Frames in a row.
func MP3Frames(n int) []byte {
	return bytes.Repeat(MP3Frame(), n)
}

// VBRIFrame is a first frame carrying a VBRI header claiming frames frames.
func VBRIFrame(frames uint32) []byte {
	f := MP3Frame()
	copy(f[36:], "VBRI")
	binary.BigEndian.PutUint16(f[40:], 1)
	binary.BigEndian.PutUint32(f[46:], frames*417)
	binary.BigEndian.PutUint32(f[50:], frames)
	return f
}

// XingFrame is a first frame carrying a Xing header (MPEG-1 stereo: at 36).
func XingFrame(frames uint32) []byte {
	f := MP3Frame()
	copy(f[36:], "Xing")
	binary.BigEndian.PutUint32(f[40:], 3)
	binary.BigEndian.PutUint32(f[44:], frames)
	binary.BigEndian.PutUint32(f[48:], frames*417)
	return f
}

// Concat joins parts into one slice.
func Concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Ramp is n bytes counting up from start.
func Ramp(n int, start byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

// Chunk builds a RIFF Chunk with its pad byte.
func Chunk(id string, body []byte) []byte {
	b := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// RIFF builds a RIFF/WAVE file of chunks whose RIFF size says size.
func RIFF(size uint32, chunks ...[]byte) []byte {
	b := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, size)...)
	b = append(b, "WAVE"...)
	for _, c := range chunks {
		b = append(b, c...)
	}
	return b
}

// FmtBody builds the body of a WAV fmt chunk; extra follows the 16
// bytes every fmt chunk has.
func FmtBody(tag, channels uint16, rate uint32, bits uint16, extra ...byte) []byte {
	le := binary.LittleEndian
	align := channels * ((bits + 7) / 8)
	b := le.AppendUint16(nil, tag)
	b = le.AppendUint16(b, channels)
	b = le.AppendUint32(b, rate)
	b = le.AppendUint32(b, rate*uint32(align))
	b = le.AppendUint16(b, align)
	b = le.AppendUint16(b, bits)
	return append(b, extra...)
}

// Extensible is the extension of a WAVE_FORMAT_EXTENSIBLE fmt chunk whose
// SubFormat starts with sub and whose valid bits are valid.
func Extensible(sub uint16, valid uint16) []byte {
	le := binary.LittleEndian
	b := le.AppendUint16(nil, 22)
	b = le.AppendUint16(b, valid)
	b = le.AppendUint32(b, 4) // channel mask
	b = le.AppendUint16(b, sub)
	return append(b, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71)
}
