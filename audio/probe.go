package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Info is what probing learns about an audio file.
type Info struct {
	Container Container
	// Codec is "pcm", "float", "mulaw", "alaw" for WAV and raw audio,
	// "mp3" (or "mp2", "mp1"), "opus", "vorbis", "flac".
	Codec         string
	SampleRate    int
	Channels      int
	BitsPerSample int // 0 for compressed codecs
	// Bitrate in bits per second: nominal for MP3 (average for VBR), 0 when unknown.
	Bitrate  int
	Duration time.Duration
}

// ErrUnsupported is wrapped by errors about audio voxform recognises but
// cannot probe or decode (an m4a duration, Ogg FLAC).
var ErrUnsupported = errors.New("not supported by voxform")

// Probe opens path and probes it with ProbeReader.
func Probe(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("probe: %w", err)
	}
	defer f.Close()
	info, err := ProbeReader(f)
	if err != nil {
		return info, fmt.Errorf("probe %s: %w", path, err)
	}
	return info, nil
}

// ProbeReader reads the container, codec, format and duration of the file
// in rs without reading it into memory: headers for WAV and FLAC, the
// Xing/Info or VBRI header or else a frame scan for MP3, the first and last
// pages for Ogg. rs is left at an unspecified position.
func ProbeReader(rs io.ReadSeeker) (Info, error) {
	size, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return Info{}, fmt.Errorf("find file size: %w", err)
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return Info{}, fmt.Errorf("rewind: %w", err)
	}
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(rs, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Info{}, fmt.Errorf("read file head: %w", err)
	}
	head = head[:n]
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return Info{}, fmt.Errorf("rewind: %w", err)
	}
	c := Sniff(head)
	switch c {
	case ContainerWAV:
		return probeWAV(rs, size)
	case ContainerMP3:
		return probeMPEG(rs, size)
	case ContainerOgg:
		return probeOgg(rs, size)
	case ContainerFLAC:
		return probeFLAC(rs)
	case ContainerAAC:
		return probeADTS(bufio.NewReaderSize(rs, 64<<10), size)
	case ContainerAMR:
		return probeAMR(rs)
	case ContainerM4A:
		return probeM4A(rs, size)
	case ContainerWebM:
		return probeWebM(rs, size)
	case ContainerUnknown:
		if n == 0 {
			return Info{Container: c}, errors.New("unknown audio container: file is empty")
		}
		// Not its bytes: the file may be any file of the project (a key).
		return Info{Container: c}, errors.New("unknown audio container: not a WAV, MP3, Ogg, FLAC, AAC (ADTS), AMR, M4A or WebM file")
	}
	return Info{Container: c}, fmt.Errorf("%w: duration of %s files", ErrUnsupported, c)
}

func probeWAV(rs io.ReadSeeker, size int64) (Info, error) {
	h, err := readWAVHeader(rs)
	if err != nil {
		return Info{Container: ContainerWAV}, err
	}
	// A data size of 0 with audio after it is a streaming header whose RIFF
	// size was patched but not its data size; ffprobe reads it to the end too.
	data := size - h.offset
	if h.dataBytes > 0 && h.dataBytes < data {
		data = h.dataBytes
	}
	return rawInfo(ContainerWAV, h.format, data), nil
}

func rawInfo(c Container, f Format, size int64) Info {
	return Info{Container: c, Codec: f.Encoding.String(), SampleRate: f.SampleRate, Channels: f.Channels,
		BitsPerSample: f.BitsPerSample, Bitrate: f.ByteRate() * 8, Duration: f.Duration(size)}
}

// ProbeRaw describes size bytes of headerless audio in format f. The
// container is "mulaw" or "alaw" for G.711 and "raw" otherwise.
func ProbeRaw(size int64, f Format) (Info, error) {
	if err := f.Validate(); err != nil {
		return Info{}, fmt.Errorf("probe raw audio: %w", err)
	}
	if size < 0 {
		return Info{}, fmt.Errorf("probe raw audio: negative size %d", size)
	}
	c := ContainerRaw
	switch f.Encoding {
	case MuLaw:
		c = ContainerMuLaw
	case ALaw:
		c = ContainerALaw
	}
	return rawInfo(c, f, size), nil
}
