package encode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/voxform/voxform/audio/internal/mp3"
	"github.com/voxform/voxform/deliver"
)

// mp3Mode walks the frames of the MP3 file at path (streamed, never
// held whole) and reports deliver.CBR and the bit rate when every frame
// has the same bit rate, deliver.VBR otherwise. A first frame that is a
// Xing/Info or VBRI tag carries no audio and is not counted: ffmpeg
// writes it at the nearest rate its tag fits.
func mp3Mode(path string) (int, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", fmt.Errorf("read MP3 frames: %w", err)
	}
	defer f.Close()
	off, err := mp3.SkipID3(f)
	if err == nil {
		_, err = f.Seek(off, io.SeekStart)
	}
	if err != nil {
		return 0, "", fmt.Errorf("read MP3 frames of %s: %w", path, err)
	}
	frames := mp3.NewFrames(bufio.NewReaderSize(f, 64<<10))
	rate, n, first := 0, 0, true
	for {
		h, frame, err := frames.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, "", fmt.Errorf("read MP3 frames of %s: %w", path, err)
		}
		if first {
			first = false
			if isTagFrame(frame, h) {
				continue
			}
		}
		if n == 0 {
			rate = h.Bitrate
		}
		n++
		if h.Bitrate != rate {
			return 0, deliver.VBR, nil
		}
	}
	if n == 0 {
		return 0, "", fmt.Errorf("read MP3 frames of %s: no frame", path)
	}
	return rate, deliver.CBR, nil
}

func isTagFrame(frame []byte, h mp3.Header) bool {
	if _, _, ok := mp3.ReadXing(frame, h); ok {
		return true
	}
	_, _, ok := mp3.ReadVBRI(frame)
	return ok
}
