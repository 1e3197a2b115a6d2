package synth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// chunkBytes is the size of one streamed piece of PCM-like audio: about a
// second, in whole frames, at least 4 KiB. At 48 kHz 16-bit a chunk's
// base64 line is longer than 64 KiB, as the live service's can be.
func chunkBytes(f outFormat) int {
	fb := f.frameBytes()
	n := f.Rate * fb
	if n < 4096 {
		n = (4096 + fb - 1) / fb * fb
	}
	return n
}

// pieces cuts an encoded synthesis into the pieces streamed as chunks.
type pieces struct {
	enc   *encoded
	src   io.Reader // what the chunks are cut from
	f     outFormat
	wavs  bool // each piece a whole WAV file (the live service), the first header-only
	first bool
	size  int
	buf   []byte
}

func newPieces(enc *encoded, f outFormat, wavs bool) *pieces {
	p := &pieces{enc: enc, src: enc, f: f, wavs: wavs && f.Container == "wav", first: true, size: chunkBytes(f)}
	if f.Container == "mp3" {
		p.size = 32 << 10
	}
	return p
}

// next returns the next piece, or io.EOF.
func (p *pieces) next() ([]byte, error) {
	if p.f.Container == "ogg" {
		// OGG is delivered as one chunk (Endpoint 2).
		if !p.first {
			return nil, io.EOF
		}
		p.first = false
		var b bytes.Buffer
		if _, err := io.Copy(&b, p.enc); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if p.wavs && p.first {
		p.first = false
		// Skip the whole-file header and leave out its pad byte: each piece
		// brings its own header.
		if _, err := io.CopyN(io.Discard, p.enc, int64(len(wavHeader(p.f, 0)))); err != nil {
			return nil, err
		}
		p.src = io.LimitReader(p.enc, p.enc.data)
		return wavHeader(p.f, 0), nil
	}
	if cap(p.buf) < p.size {
		p.buf = make([]byte, p.size)
	}
	n, err := io.ReadFull(p.src, p.buf[:p.size])
	if n == 0 {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return nil, err
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if p.wavs {
		return wavFile(p.f, p.buf[:n]), nil
	}
	return p.buf[:n], nil
}

// wavFile is a whole WAV file holding data, with its pad byte.
func wavFile(f outFormat, data []byte) []byte {
	b := append(wavHeader(f, int64(len(data))), data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// sseWriter writes events and flushes each one.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte // reused for every chunk event
}

// chunk writes an audio chunk event: the bare base64 audio (quick-start
// form) or {"audio", "chunk_index", "is_final": false}, the bytes
// json.Marshal would give. One buffer serves every chunk and the audio is
// encoded straight into it (base64 needs no JSON escaping), so that a long
// stream allocates nothing per chunk.
func (s *sseWriter) chunk(name string, index int, piece []byte, bare bool) error {
	b := append(s.buf[:0], "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	if !bare {
		b = append(b, `{"audio":"`...)
	}
	b = base64.StdEncoding.AppendEncode(b, piece)
	if !bare {
		b = append(b, `","chunk_index":`...)
		b = strconv.AppendInt(b, int64(index), 10)
		b = append(b, `,"is_final":false}`...)
	}
	b = append(b, "\n\n"...)
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sseWriter) event(name string, data any) error {
	var payload []byte
	switch d := data.(type) {
	case string:
		payload = []byte(d)
	default:
		payload, _ = json.Marshal(d)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, payload); err != nil {
		return err
	}
	return s.rc.Flush()
}

// quickStartForm tells whether a request gets the second, quick-start
// event form (audio_chunk/completed). Only in the live profile, and only
// for some requests, as the live service is seen to do.
func (s *service) quickStartForm(j *job) bool {
	return s.env.Opts.Live() && (hash64(j.Text)>>29)&1 == 1 // a well-mixed bit (FNV's lowest is a parity)
}

// sse is POST /api/v1/tts/sse: start, chunks, complete (Events).
func (s *service) sse(w http.ResponseWriter, r *http.Request) {
	j, ok := s.readJob(w, r)
	if !ok {
		return
	}
	enc, err := s.open(r, j)
	if err != nil {
		writeOpenError(w, err)
		return
	}
	defer enc.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	s.bill(j)
	w.WriteHeader(http.StatusOK)
	ev := &sseWriter{w: w, rc: http.NewResponseController(w)}
	quick := s.quickStartForm(j)
	if !quick {
		if ev.event("start", map[string]any{"status": "streaming_started", "text": j.Text}) != nil {
			return
		}
	}
	p := newPieces(enc, j.Format, s.env.Opts.Live())
	index := 0
	for {
		piece, err := p.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = ev.event("error", map[string]string{"type": emu.APIError, "message": "synthesis failed: " + err.Error()})
			return
		}
		index++
		if quick {
			err = ev.chunk("audio_chunk", index, piece, true)
		} else {
			err = ev.chunk("chunk", index, piece, false)
		}
		if err != nil {
			return
		}
	}
	// Live WAV pieces leave the file's pad byte unread: read it, so that
	// a speech fault's audio is hashed whole.
	_, _ = io.Copy(io.Discard, enc)
	if quick {
		_ = ev.event("completed", map[string]string{"status": "success"})
		return
	}
	_ = ev.event("complete", map[string]any{"chunk_index": index + 1, "audio": "", "is_final": true})
}
