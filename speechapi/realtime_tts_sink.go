package speechapi

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
)

// pcmSink writes the raw PCM of a realtime synthesis in the requested
// container.
type pcmSink struct {
	cfg      contract.Format
	in       audio.Format // what the socket carries
	w        io.Writer
	wav      *audio.WAVWriter
	carry    []byte // a partial sample between frames (G.711 conversion)
	buf      []byte
	received int64 // PCM data bytes received
	written  int64 // bytes written to w (not counting a WAV header)
	started  bool
}

func newPCMSink(cfg contract.Format, w io.Writer) (*pcmSink, error) {
	p := &pcmSink{cfg: cfg, in: wsPCMFormat(cfg), w: w}
	switch cfg.Container {
	case ContainerWAV:
		if _, ok := w.(io.WriteSeeker); !ok {
			return nil, fmt.Errorf("wav over websocket needs an io.WriteSeeker such as *os.File to write the header's sizes")
		}
	case ContainerRaw, ContainerMuLaw, ContainerALaw:
	default:
		return nil, fmt.Errorf("container %s cannot be written from websocket PCM: use wav, raw, mulaw or alaw, or the rest or sse transport", cfg.Container)
	}
	return p, nil
}

// start begins the output when the first audio arrives, so that a
// request the service rejects writes nothing.
func (p *pcmSink) start() error {
	if err := p.in.Validate(); err != nil {
		return fmt.Errorf("websocket audio: %w", err)
	}
	if p.cfg.Container == ContainerWAV {
		wv, err := audio.NewWAVWriter(p.w.(io.WriteSeeker), p.in)
		if err != nil {
			return err
		}
		p.wav = wv
	}
	p.started = true
	return nil
}

// add appends one frame or piece: raw PCM, or a whole WAV file whose
// format must be the expected one.
func (p *pcmSink) add(piece []byte) error {
	if !p.started {
		if err := p.start(); err != nil {
			return err
		}
	}
	if audio.IsWAV(piece) {
		f, data, err := audio.ParseWAV(piece)
		if err != nil {
			return fmt.Errorf("websocket wav piece: %w", err)
		}
		if f != p.in {
			return fmt.Errorf("websocket wav piece is %s, expected %s", f, p.in)
		}
		piece = data
	}
	p.received += int64(len(piece))
	switch p.cfg.Container {
	case ContainerMuLaw, ContainerALaw:
		return p.companded(piece)
	case ContainerWAV:
		_, err := p.wav.Write(piece)
		return wrapWrite(err)
	}
	n, err := p.w.Write(piece)
	p.written += int64(n)
	return wrapWrite(err)
}

// companded converts 16-bit PCM to G.711 bytes.
func (p *pcmSink) companded(piece []byte) error {
	if len(p.carry) > 0 && len(piece) > 0 {
		p.carry = append(p.carry, piece[0])
		piece = piece[1:]
	}
	p.buf = p.buf[:0]
	if len(p.carry) == 2 {
		p.buf = append(p.buf, p.g711(int16(binary.LittleEndian.Uint16(p.carry))))
		p.carry = p.carry[:0]
	}
	for len(piece) >= 2 {
		p.buf = append(p.buf, p.g711(int16(binary.LittleEndian.Uint16(piece))))
		piece = piece[2:]
	}
	p.carry = append(p.carry, piece...)
	n, err := p.w.Write(p.buf)
	p.written += int64(n)
	return wrapWrite(err)
}

func (p *pcmSink) g711(s int16) byte {
	if p.cfg.Container == ContainerALaw {
		return audio.ALawEncode(s)
	}
	return audio.MuLawEncode(s)
}

func wrapWrite(err error) error {
	if err != nil {
		return fmt.Errorf("write audio: %w", err)
	}
	return nil
}

// finish completes the container.
func (p *pcmSink) finish() error {
	if p.received == 0 {
		return &IncompleteError{What: "websocket", Reason: "no audio received"}
	}
	if fb := int64(p.in.BlockAlign()); p.received%fb != 0 || len(p.carry) > 0 {
		return &IncompleteError{What: "websocket", Reason: fmt.Sprintf("%d bytes is not a whole number of %d-byte frames", p.received, fb)}
	}
	if p.wav != nil {
		if err := p.wav.Close(); err != nil {
			return fmt.Errorf("finish wav: %w", err)
		}
	}
	return nil
}

// bytesWritten is what reached the caller's writer.
func (p *pcmSink) bytesWritten() int64 {
	if p.wav != nil {
		n := p.wav.DataBytes()
		return int64(audio.WAVHeaderSize(p.in)) + n + n&1
	}
	return p.written
}
