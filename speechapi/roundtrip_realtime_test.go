package speechapi_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/speechapi"
)

// TestRoundTripRealtimeCompandedAndMP3: speech the emulator spoke, given to
// the realtime client as a mu-law WAV, an A-law WAV and an MP3, is decoded,
// resampled and framed by the client and transcribed back to the text.
//
// conformance: RT-004, RT-012
func TestRoundTripRealtimeCompandedAndMP3(t *testing.T) {
	e := roundTrip()
	dir := t.TempDir()
	const text = "Your table for four is booked at eight tonight."
	wav := synthFor(t, e.client, text, "en-IN", &speechapi.AudioConfig{SampleRate: 8000, Container: "wav"})
	inputs := []struct {
		name     string
		data     []byte
		codec    audio.Encoding
		rate     int
		wantCont audio.Container
	}{
		{"mulaw.wav", ffmpegConvert(t, wav, dir, "mulaw.wav", "-c:a", "pcm_mulaw"), audio.MuLaw, 16000, audio.ContainerWAV},
		{"alaw.wav", ffmpegConvert(t, wav, dir, "alaw.wav", "-c:a", "pcm_alaw"), audio.ALaw, 8000, audio.ContainerWAV},
		{"speech.mp3", synthFor(t, e.client, text, "en-IN", &speechapi.AudioConfig{SampleRate: 22050, Container: "mp3"}), audio.PCM, 16000, audio.ContainerMP3},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			d, err := audio.Decode(bytes.NewReader(in.data))
			if err != nil {
				t.Fatal(err)
			}
			if d.Container != in.wantCont || (d.Container == audio.ContainerWAV && d.Format.Encoding != in.codec) {
				t.Fatalf("input is %s %v, not what the test means to send", d.Container, d.Format)
			}
			res, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(in.data),
				speechapi.RealtimeOptions{LanguageCode: "en-IN", SampleRate: in.rate})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Segments {
				got = append(got, s.Text)
			}
			if !res.Closed || normWords(strings.Join(got, " ")) != normWords(text) {
				t.Errorf("closed=%v segments %q, want %q", res.Closed, got, text)
			}
		})
	}
}
