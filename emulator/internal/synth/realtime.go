package synth

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Realtime synthesis (Endpoint 3). The documents leave the end of the
// stream open; the emulator closes with 1000 after the last frame (SPEC
// section 8a). One synthesis per connection.

const (
	wsRequestTimeout = 30 * time.Second
	wsWriteTimeout   = 30 * time.Second
	wsFrameBytes     = 32 << 10
)

var upgrader = websocket.Upgrader{
	ReadBufferSize:  16 << 10,
	WriteBufferSize: 64 << 10,
	CheckOrigin:     func(*http.Request) bool { return true },
}

// wsFormat is the PCM the socket carries for a request: linear PCM at the
// request's rate, channels and width. For mulaw and alaw it is 16-bit PCM
// at 8000 Hz, and mp3 and ogg become 16-bit PCM: the transport carries raw
// PCM only, and the client writes the container.
func wsFormat(f outFormat) outFormat {
	w := outFormat{Container: "raw", Rate: f.Rate, Channels: f.Channels, Width: f.Width}
	switch f.Container {
	case "mulaw", "alaw", "mp3", "ogg":
		w.Width = 2
	}
	return w
}

// realtime is GET /api/v1/tts upgraded to a WebSocket.
func (s *service) realtime(w http.ResponseWriter, r *http.Request) {
	drop := emu.ShouldDrop(r.Context())
	conn, err := upgrader.Upgrade(w, r, w.Header()) // the handshake names the profile (emu.HeaderProfile)
	if err != nil {
		return // the upgrader answered the client
	}
	defer conn.Close()
	conn.SetReadLimit(s.maxBody())
	_ = conn.SetReadDeadline(time.Now().Add(wsRequestTimeout))
	typ, msg, err := conn.ReadMessage()
	if err != nil {
		return
	}
	if typ != websocket.TextMessage {
		s.wsFail(conn, websocket.CloseUnsupportedData, invalid("send the synthesis request as one JSON text message"))
		return
	}
	s.env.ReceiveJSON(r.Pattern, msg)
	j, err := s.parse(msg)
	if err != nil {
		s.wsFail(conn, websocket.ClosePolicyViolation, err)
		return
	}
	s.fault(j, r.Pattern)
	f := wsFormat(j.Format)
	src, err := s.r.open(r.Context(), j, f.Rate)
	if err != nil {
		s.wsFail(conn, websocket.CloseInternalServerErr, err)
		return
	}
	defer src.Close()
	s.bill(j)
	pr := newPCMReader(src, f)
	if j.fault != nil {
		pr.sum = newSummer(s.env, j.fault)
	}
	if s.env.Opts.Live() {
		err = s.wsJSON(conn, pr, f, drop)
	} else {
		err = s.wsBinary(conn, pr, drop)
	}
	if err != nil {
		return
	}
	s.wsClose(conn)
}

// wsBinary sends the audio as binary frames of raw PCM.
func (s *service) wsBinary(conn *websocket.Conn, pr *pcmReader, drop bool) error {
	buf := make([]byte, wsFrameBytes/pr.f.frameBytes()*pr.f.frameBytes())
	total := pr.Size()
	var sent int64
	for {
		n, err := io.ReadFull(pr, buf)
		if n > 0 {
			if drop && sent+int64(n) > total/2 {
				return s.cut(conn)
			}
			_ = conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
			if werr := conn.WriteMessage(websocket.BinaryMessage, buf[:n]); werr != nil {
				return werr
			}
			sent += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if drop {
				return s.cut(conn)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// wsMessage is a JSON text frame of the live service's form.
type wsMessage struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

type wsAudio struct {
	Audio      string `json:"audio"`
	ChunkIndex int    `json:"chunk_index"`
	IsFinal    bool   `json:"is_final"`
}

// wsJSON sends the audio as the live service does: JSON text frames whose
// base64 pieces are whole WAV files (the first header-only), with the last
// piece inside the complete message.
func (s *service) wsJSON(conn *websocket.Conn, pr *pcmReader, f outFormat, drop bool) error {
	send := func(m wsMessage) error {
		_ = conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
		return conn.WriteJSON(m)
	}
	if err := send(wsMessage{Type: "start", Data: map[string]string{"status": "streaming_started"}}); err != nil {
		return err
	}
	wavFmt := f
	wavFmt.Container = "wav"
	if err := send(wsMessage{Type: "audio", Data: wsAudio{Audio: b64(wavHeader(wavFmt, 0)), ChunkIndex: 1}}); err != nil {
		return err
	}
	buf := make([]byte, chunkBytes(f))
	var pending []byte
	index := 1
	for {
		n, err := io.ReadFull(pr, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		if pending != nil {
			if drop && index > 1 {
				return s.cut(conn)
			}
			index++
			if e := send(wsMessage{Type: "audio", Data: wsAudio{Audio: b64(pending), ChunkIndex: index}}); e != nil {
				return e
			}
			pending = nil
		}
		if n == 0 {
			break
		}
		pending = wavFile(wavFmt, buf[:n])
		if err != nil {
			break
		}
	}
	if drop {
		return s.cut(conn)
	}
	index++
	return send(wsMessage{Type: "complete", Data: wsAudio{Audio: b64(pending), ChunkIndex: index, IsFinal: true}})
}

func b64(p []byte) string { return base64.StdEncoding.EncodeToString(p) }

// cut drops the connection mid-stream without a close frame.
func (s *service) cut(conn *websocket.Conn) error {
	s.env.Stats.RouteFault(routeRealtime, "drop")
	_ = conn.NetConn().Close()
	return errors.New("dropped")
}

// wsClose ends a successful stream with 1000 and waits briefly for the
// client's close frame.
func (s *service) wsClose(conn *websocket.Conn) {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "synthesis complete")
	_ = conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second))
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := conn.NextReader(); err != nil {
			return
		}
	}
}

// wsFail sends an error message ({"type": "error", "data": {type,
// message}}) and closes with code.
func (s *service) wsFail(conn *websocket.Conn, code int, err error) {
	typ := emu.APIError
	var re *requestError
	if errors.As(err, &re) {
		typ = emu.InvalidRequest
	}
	_ = conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_ = conn.WriteJSON(wsMessage{Type: "error", Data: map[string]string{"type": typ, "message": err.Error()}})
	reason := err.Error()
	if len(reason) > 120 {
		reason = reason[:120]
	}
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(5*time.Second))
}
