package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/voxform/voxform/audio/internal/mp3"
	"github.com/voxform/voxform/audio/ogg"
)

// ErrInvalid is wrapped by every error Validate and ValidateRaw return
// about the file's contents (as opposed to failing to read it).
var ErrInvalid = errors.New("invalid audio file")

// Validate checks that the finished file at path is a complete, valid file
// of the expected container, as voxform writes or receives them: the right
// magic; for WAV, RIFF and data sizes that agree with the file size and
// data that is whole frames; for MP3, frames from the first to the last
// byte (tags aside) with none truncated; for Ogg, a last page that ends the
// stream (end-of-stream flag) at the end of the file; for FLAC, a
// STREAMINFO block. Headerless containers (raw, mulaw, alaw) are only
// checked not to start with another container's header; ValidateRaw also
// checks their length against a Format.
func Validate(path string, expected Container) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	defer f.Close()
	if err := ValidateReader(f, expected); err != nil {
		return fmt.Errorf("validate %s: %w", path, err)
	}
	return nil
}

// ValidateReader is Validate for an open file.
func ValidateReader(rs io.ReadSeeker, expected Container) error {
	size, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	head := make([]byte, SniffLen)
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, _ := io.ReadFull(rs, head)
	got := Sniff(head[:n])
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return err
	}
	switch expected {
	case ContainerRaw, ContainerMuLaw, ContainerALaw:
		// Headerless audio may start with any bytes: mu-law silence is
		// 0xFF, so a frame sync of MP3 or AAC proves nothing. Only a
		// container's file magic (a WAV, Ogg or FLAC file where samples
		// were asked for) is a sure sign of the wrong answer.
		switch got {
		case ContainerWAV, ContainerOgg, ContainerFLAC:
			return fmt.Errorf("%w: %s audio starts with a %s header", ErrInvalid, expected, got)
		}
		return nil
	}
	if got != expected {
		if n == 0 {
			return fmt.Errorf("%w: file is empty, want %s", ErrInvalid, expected)
		}
		return fmt.Errorf("%w: file is %s, want %s", ErrInvalid, got, expected)
	}
	switch expected {
	case ContainerWAV:
		return validateWAV(rs, size)
	case ContainerMP3:
		return validateMP3(rs, size)
	case ContainerOgg:
		return validateOgg(rs, size)
	case ContainerFLAC:
		_, err := probeFLAC(rs)
		return invalid(err)
	}
	return fmt.Errorf("%w: validating %s files", ErrUnsupported, expected)
}

// invalid marks a probing error as being about the file's contents.
func invalid(err error) error {
	if err == nil || errors.Is(err, ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}

func validateWAV(rs io.ReadSeeker, size int64) error {
	h, err := readWAVHeader(rs)
	if err != nil {
		return invalid(err)
	}
	if h.dataBytes == UnknownSize {
		return fmt.Errorf("%w: data size left unset (streaming header)", ErrInvalid)
	}
	end := h.offset + h.dataBytes + h.dataBytes&1
	var short string
	if end > size {
		short = fmt.Sprintf("data chunk of %d bytes runs past the end of the file (%d bytes, %d of them after the header; truncated?)",
			h.dataBytes, size, max(size-h.offset, 0))
	}
	if int64(h.riffSize)+8 != size {
		if short != "" { // a cut file: both sizes are wrong; say both
			short = "; " + short
		}
		return fmt.Errorf("%w: RIFF size %d does not match file size %d%s", ErrInvalid, h.riffSize, size, short)
	}
	if short != "" {
		return fmt.Errorf("%w: %s", ErrInvalid, short)
	}
	if end < size {
		// Chunks may follow the data; check that they fill the file.
		rest := size - end
		if rest > 1<<20 {
			return fmt.Errorf("%w: %d bytes after the data chunk", ErrInvalid, rest)
		}
		b := make([]byte, rest)
		if _, err := rs.Seek(end, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(rs, b); err != nil {
			return err
		}
		if !isChunkList(b) {
			return fmt.Errorf("%w: %d bytes after the data chunk are not RIFF chunks", ErrInvalid, rest)
		}
	}
	if align := int64(h.format.BlockAlign()); h.dataBytes%align != 0 {
		return fmt.Errorf("%w: data size %d is not a multiple of the frame size %d", ErrInvalid, h.dataBytes, align)
	}
	return nil
}

func validateMP3(rs io.ReadSeeker, size int64) error {
	start, err := mp3.SkipID3(rs)
	if err != nil {
		return err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(rs, 64<<10)
	skipped, err := mp3.Sync(br, mp3.SearchLimit)
	if err != nil {
		return invalid(err)
	}
	if skipped > 0 {
		return fmt.Errorf("%w: %d bytes of junk before the first MP3 frame", ErrInvalid, skipped)
	}
	frames, _, junk, err := scanMPEG(br)
	if err != nil {
		return err
	}
	if frames == 0 {
		return fmt.Errorf("%w: no complete MP3 frame", ErrInvalid)
	}
	if junk > 0 {
		return fmt.Errorf("%w: %d bytes between or after the MP3 frames are not audio (truncated file?)", ErrInvalid, junk)
	}
	return nil
}

func validateOgg(rs io.ReadSeeker, size int64) error {
	info, err := probeOgg(rs, size)
	if err != nil {
		return invalid(err)
	}
	if info.Duration <= 0 {
		return fmt.Errorf("%w: Ogg stream has no audio", ErrInvalid)
	}
	head := make([]byte, ogg.HeaderLen)
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.ReadFull(rs, head); err != nil {
		return err
	}
	last, err := lastPage(rs, size, binary.LittleEndian.Uint32(head[14:18]))
	if err != nil {
		return invalid(err)
	}
	if !last.eos {
		return fmt.Errorf("%w: last Ogg page lacks the end-of-stream flag (truncated file?)", ErrInvalid)
	}
	if last.end != size {
		return fmt.Errorf("%w: %d bytes after the last Ogg page", ErrInvalid, size-last.end)
	}
	return nil
}

// ValidateRawAt checks that the size bytes read through r (a file being
// written, checked through the handle that writes it) hold whole frames
// of format f and do not start with a container header (a WAV header left
// in raw output, say).
func ValidateRawAt(r io.ReaderAt, size int64, f Format) error {
	if err := f.Validate(); err != nil {
		return err
	}
	c := ContainerRaw
	switch f.Encoding {
	case MuLaw:
		c = ContainerMuLaw
	case ALaw:
		c = ContainerALaw
	}
	if err := ValidateReader(io.NewSectionReader(r, 0, size), c); err != nil {
		return err
	}
	if size%int64(f.BlockAlign()) != 0 {
		return fmt.Errorf("%w: %d bytes is not a whole number of %d-byte frames", ErrInvalid, size, f.BlockAlign())
	}
	return nil
}
