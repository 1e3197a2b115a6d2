package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator/internal/emu"
)

// embeddingDim is the second dimension of an embedding's shape.
const embeddingDim = 768

// maxReference bounds an uploaded reference recording.
const maxReference = 64 << 20

// embeddings is POST /api/v1/tts/voice-clone/embeddings: a multipart
// upload with one file field audio_file (WAV or MP3). The embedding is
// derived from the recording's bytes, so the same recording always gives
// the same embedding.
func (s *service) embeddings(w http.ResponseWriter, r *http.Request) {
	sum, err := readReference(w, r)
	if err != nil {
		emu.WriteRESTError(w, http.StatusBadRequest, emu.InvalidRequest, err.Error())
		return
	}
	s.env.Stats.Inc(emu.EmbeddingsCreated)
	emu.WriteJSON(w, http.StatusOK, map[string]any{
		"embedding": encodeEmbedding(sum),
		"shape":     []int{1, embeddingDim},
		"dtype":     "float32",
	})
}

// readReference streams the audio_file part through a hash and checks it is
// a WAV or an MP3 recording.
func readReference(w http.ResponseWriter, r *http.Request) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	mr, err := r.MultipartReader()
	if err != nil {
		return sum, errors.New("request must be multipart/form-data with a file field audio_file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxReference)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return sum, errors.New("file field audio_file is required")
		}
		if err != nil {
			return sum, errors.New("multipart body is malformed or larger than 64 MiB")
		}
		if p.FormName() != "audio_file" {
			_, _ = io.Copy(io.Discard, p)
			continue
		}
		h := sha256.New()
		tr := io.TeeReader(p, h)
		if err := checkReference(tr); err != nil {
			return sum, err
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return sum, errors.New("audio_file could not be read completely")
		}
		copy(sum[:], h.Sum(nil))
		return sum, nil
	}
}

// checkReference accepts a WAV file with a readable header or an MP3 file
// (an ID3 tag or an MPEG audio frame sync).
func checkReference(r io.Reader) error {
	head := make([]byte, 12)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	switch {
	case n == 0:
		return errors.New("audio_file is empty")
	case n == 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		if _, _, err := audio.ReadWAVHeader(io.MultiReader(bytes.NewReader(head), r)); err != nil {
			return errors.New("audio_file is not a readable WAV file: " + err.Error())
		}
		return nil
	case n >= 3 && string(head[:3]) == "ID3", n >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0:
		return nil
	}
	return errors.New("audio_file must be a WAV or MP3 recording")
}

// encodeEmbedding derives 768 float32 values from a content hash and
// encodes them as base64 of their little-endian bytes.
func encodeEmbedding(sum [sha256.Size]byte) string {
	rng := rand.New(rand.NewChaCha8(sum))
	buf := make([]byte, 4*embeddingDim)
	for i := 0; i < embeddingDim; i++ {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(rng.NormFloat64()*0.1)))
	}
	return base64.StdEncoding.EncodeToString(buf)
}
