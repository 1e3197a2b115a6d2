package audio_test

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/voxform/voxform/audio"
)

func TestSampleConversions(t *testing.T) {
	tests := []struct {
		name    string
		f       audio.Format
		bytes   []byte
		samples []float64
	}{
		{"u8", u8mono, []byte{0x80, 0xFF, 0x00, 0xC0}, []float64{0, 127.0 / 128, -1, 0.5}},
		{"s16", mono16k, []byte{0, 0, 0xFF, 0x7F, 0, 0x80, 0, 0x40}, []float64{0, 32767.0 / 32768, -1, 0.5}},
		{"s24", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 24}, []byte{0, 0, 0, 0xFF, 0xFF, 0x7F, 0, 0, 0x80, 0, 0, 0xC0},
			[]float64{0, 8388607.0 / 8388608, -1, -0.5}},
		{"s32", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 32}, []byte{0, 0, 0, 0x40, 0, 0, 0, 0x80}, []float64{0.5, -1}},
		{"f32", float22, []byte{0, 0, 0, 0x3F, 0, 0, 0x80, 0xBF}, []float64{0.5, -1}},
		{"f64", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 64, Encoding: audio.Float}, []byte{0, 0, 0, 0, 0, 0, 0xE0, 0x3F}, []float64{0.5}},
		{"mulaw", mulaw8k, []byte{0xFF, 0x80, 0x00}, []float64{0, 32124.0 / 32768, -32124.0 / 32768}},
		{"alaw", alaw8k, []byte{0xD5, 0xAA, 0x2A}, []float64{8.0 / 32768, 32256.0 / 32768, -32256.0 / 32768}},
		{"s16 stereo", audio.Format{SampleRate: 8000, Channels: 2, BitsPerSample: 16}, []byte{0, 0x40, 0, 0xC0}, []float64{0.5, -0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := audio.NewSampleReader(bytes.NewReader(tt.bytes), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			if diff := cmp.Diff(tt.samples, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("decode (-want +got):\n%s", diff)
			}
			var b bytes.Buffer
			w, err := audio.NewSampleWriter(&b, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteSamples(tt.samples); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.bytes, b.Bytes()); diff != "" {
				t.Errorf("encode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSampleWriterClipsAndDropsPartialFrames(t *testing.T) {
	var b bytes.Buffer
	w, _ := audio.NewSampleWriter(&b, mono16k)
	w.WriteSamples([]float64{2, -2, math.NaN()})
	if diff := cmp.Diff([]byte{0xFF, 0x7F, 0x00, 0x80, 0, 0}, b.Bytes()); diff != "" {
		t.Errorf("clip (-want +got):\n%s", diff)
	}
	stereo := audio.Format{SampleRate: 8000, Channels: 2, BitsPerSample: 16}
	r, _ := audio.NewSampleReader(bytes.NewReader([]byte{1, 0, 2, 0, 3, 0}), stereo)
	if got := readAll(t, r); len(got) != 2 {
		t.Errorf("read %d samples from 1.5 frames, want 2", len(got))
	}
}

func TestMono(t *testing.T) {
	stereo := audio.Format{SampleRate: 8000, Channels: 2, BitsPerSample: 16}
	r, _ := audio.NewSampleReader(bytes.NewReader([]byte{0, 0x40, 0, 0, 0, 0x40, 0, 0x40}), stereo)
	got := readAll(t, audio.Mono(r))
	if diff := cmp.Diff([]float64{0.25, 0.5}, got); diff != "" {
		t.Errorf("downmix (-want +got):\n%s", diff)
	}
}

// readAll drains a SampleSource in small odd-sized reads.
func readAll(t testing.TB, s audio.SampleSource) []float64 {
	t.Helper()
	var out []float64
	buf := make([]float64, 7*s.Channels())
	for {
		n, err := s.ReadSamples(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
