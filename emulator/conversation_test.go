package emulator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
)

// callTurn is one turn of a test call: who speaks on which channel.
type callTurn struct {
	Channel int    `json:"channel"`
	Speaker string `json:"speaker,omitempty"`
	Text    string `json:"text"`
}

// theCall is a call in which the customer (channel 1) reads out a mobile
// number, an Aadhaar number and a card number, partly as Hindi number
// words, and speaks twice in a row once.
var theCall = []callTurn{
	{0, "Nalini", "नमस्ते, मैं आपकी क्या मदद कर सकती हूँ? कृपया अपना मोबाइल नंबर बताइए।"},
	{1, "Deepak", "मेरा नंबर है nine eight सात six five four तीन two one zero."},
	{0, "", "धन्यवाद। अब अपना आधार नंबर बताइए।"},
	{1, "", "two three four one पाँच छह सात आठ nine zero one two."},
	{1, "", "और कार्ड नंबर है four five three two, एक दो तीन चार, five six seven eight, नौ शून्य एक दो."},
	{0, "", "ठीक है, धन्यवाद।"},
}

// conversationWAV asks the emulator for a recording of turns at rate.
func conversationWAV(t *testing.T, s *service, rate int, turns []callTurn) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{"sample_rate": rate, "language_code": "hi-IN", "turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	status, b := s.send(http.MethodPost, "/_emulator/conversation", "", "application/json", bytes.NewReader(body))
	if status != http.StatusOK {
		t.Fatalf("conversation: %d %s", status, b)
	}
	f, n, err := audio.ReadWAVHeader(bytes.NewReader(b))
	if err != nil || f.Channels != 2 || f.SampleRate != rate || f.BitsPerSample != 16 || n != int64(len(b)-44) {
		t.Fatalf("conversation: %+v, %d data bytes of %d (%v): want a 16-bit stereo WAV at %d Hz", f, n, len(b), err, rate)
	}
	return b
}

// turnStarts finds where each turn of a stereo 16-bit recording begins:
// the first sound on its channel after the previous turn began and fell
// silent on its own channel for the gap.
func turnStarts(wav []byte, rate int, turns []callTurn) []float64 {
	pcm := wav[44:]
	sample := func(frame, ch int) int16 { return int16(uint16(pcm[frame*4+ch*2]) | uint16(pcm[frame*4+ch*2+1])<<8) }
	frames := len(pcm) / 4
	var out []float64
	at := 0
	for _, tn := range turns {
		for at < frames && sample(at, tn.Channel) == 0 {
			at++
		}
		out = append(out, float64(at)/float64(rate))
		// The turn lasts until its channel has been silent for 0.6 s
		// (the gap is 0.7 s; a turn's own pauses are shorter).
		quiet := 0
		for ; at < frames && quiet < rate*6/10; at++ {
			if sample(at, tn.Channel) == 0 {
				quiet++
			} else {
				quiet = 0
			}
		}
	}
	return out
}

type heardSegment struct {
	Start   float64 `json:"start_time"`
	End     float64 `json:"end_time"`
	Text    string  `json:"text"`
	Speaker int     `json:"speaker_id"`
}

// checkTurns checks that segments hold each turn's words, as spoken, on
// its channel, in time order, beginning where the turn begins.
func checkTurns(t *testing.T, segs []heardSegment, turns []callTurn, starts []float64) {
	t.Helper()
	k := 0
	last := -1.0
	for i, tn := range turns {
		want := strings.Join(strings.Fields(tn.Text), " ")
		var got []string
		for k < len(segs) && len(strings.Join(got, " ")) < len(want) {
			sg := segs[k]
			if sg.Speaker != tn.Channel || sg.Start < last || sg.End < sg.Start {
				t.Errorf("turn %d: segment %+v: want speaker_id %d, in time order after %.3f", i, sg, tn.Channel, last)
			}
			if len(got) == 0 && (sg.Start < starts[i]-0.06 || sg.Start > starts[i]+0.1) {
				t.Errorf("turn %d begins at %.3f s, heard from %.3f s", i, starts[i], sg.Start)
			}
			got = append(got, sg.Text)
			last = sg.End
			k++
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("turn %d on channel %d: heard %q, want %q", i, tn.Channel, g, want)
		}
	}
	if k != len(segs) {
		t.Errorf("%d segments beyond the turns: %+v", len(segs)-k, segs[k:])
	}
}

// batchTranscript runs one file through a batch job with config and
// returns its transcript JSON.
func batchTranscript(t *testing.T, s *service, config string, wav []byte) (segs []heardSegment, full string) {
	t.Helper()
	body, ctype := form(t, map[string]string{"config": config}, formFile{"files", "call.wav", wav})
	status, b := s.send(http.MethodPost, "/stt/v3/batch/jobs", "k", ctype, body)
	id, _ := object(t, b)["job_id"].(string)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, b)
	}
	if status, _ := startJob(t, s, id); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	if got := listFiles(t, s, id); got["call.wav"] != "COMPLETED" {
		t.Fatalf("files: %v", got)
	}
	_, b = s.send(http.MethodGet, "/stt/v3/batch/jobs/"+id+"/files", "k", "", nil)
	var page struct {
		Data []struct {
			URL string `json:"transcript_url"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &page); err != nil || len(page.Data) != 1 {
		t.Fatalf("files: %s %v", b, err)
	}
	resp, err := http.Get(page.Data[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Segments []heardSegment `json:"segments"`
		Full     string         `json:"full_transcript"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Segments, doc.Full
}

// TestConversationHeardPerChannel: a call recording made by
// POST /_emulator/conversation, at 8 and 16 kHz, in espeak-ng's voice and
// in the synthetic one (when espeak-ng is absent), under either profile
// (the live one names tts-v2.5 timbre-v2.5), transcribed by a batch
// job with is_multi_channel, gives each turn's words as they were spoken
// (Hindi and English number words untouched: batch jobs have no ITN),
// with its channel as speaker_id, in time order, at the turn's time.
func TestConversationHeardPerChannel(t *testing.T) {
	for _, tc := range []struct {
		voice string
		rate  int
		live  bool
	}{{"espeak-ng", 8000, false}, {"espeak-ng", 16000, false}, {"synthetic", 8000, false}, {"synthetic", 8000, true}} {
		t.Run(fmt.Sprint(tc.voice, tc.rate, tc.live), func(t *testing.T) {
			opts := emulator.Options{NoEspeak: tc.voice == "synthetic"}
			if tc.live {
				opts.Profile = emulator.ProfileLive
			}
			s := newService(t, opts)
			rate := tc.rate
			wav := conversationWAV(t, s, rate, theCall)
			segs, full := batchTranscript(t, s, `{"model": "stt-v2.5", "language_code": "hi-IN", "is_multi_channel": true}`, wav)
			checkTurns(t, segs, theCall, turnStarts(wav, rate, theCall))
			var texts []string
			for _, tn := range theCall {
				texts = append(texts, tn.Text)
			}
			if want := strings.Join(strings.Fields(strings.Join(texts, " ")), " "); full != want {
				t.Errorf("full_transcript %q, want %q", full, want)
			}
		})
	}
}

// TestConversationWithoutMultiChannel: the same call without
// is_multi_channel is one speaker (0), with diarization of two speakers
// the parties are told apart (speaker = channel); the older batch with
// is_multi_channel names the channels; REST, which has no such field,
// hears every turn in order.
func TestConversationWithoutMultiChannel(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true}) // the voice is not what this tests
	wav := conversationWAV(t, s, 8000, theCall)
	starts := turnStarts(wav, 8000, theCall)
	single := make([]callTurn, len(theCall))
	for i, tn := range theCall {
		single[i] = callTurn{Channel: 0, Text: tn.Text}
	}
	segs, _ := batchTranscript(t, s, `{"model": "stt-v2.5", "language_code": "hi-IN"}`, wav)
	checkTurns(t, segs, single, starts)
	segs, _ = batchTranscript(t, s, `{"model": "stt-v2.5", "language_code": "hi-IN", "with_diarization": true, "num_speakers": 2}`, wav)
	checkTurns(t, segs, theCall, starts)

	body, ctype := form(t, map[string]string{"language_code": "hi-IN", "is_multi_channel": "true"},
		formFile{"audio_files", "call.wav", wav})
	status, b := s.send(http.MethodPost, "/stt/v3/batch/submit", "k", ctype, body)
	id, _ := object(t, b)["job_id"].(string)
	if status != http.StatusOK || id == "" {
		t.Fatalf("submit: %d %s", status, b)
	}
	s.advance(time.Hour)
	_, b = s.send(http.MethodGet, "/stt/v3/batch/status/"+id, "k", "", nil)
	var job struct {
		Results []struct {
			Segments []heardSegment `json:"segments"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &job); err != nil || len(job.Results) != 1 {
		t.Fatalf("older batch: %s %v", b, err)
	}
	checkTurns(t, job.Results[0].Segments, theCall, starts)

	var texts []string
	for _, tn := range theCall {
		texts = append(texts, tn.Text)
	}
	body, ctype = form(t, map[string]string{"language_code": "hi-IN"}, formFile{"audio_file", "call.wav", wav})
	status, b = s.send(http.MethodPost, "/stt/v3", "k", ctype, body)
	if got, _ := object(t, b)["transcript"].(string); status != http.StatusOK || got != strings.Join(strings.Fields(strings.Join(texts, " ")), " ") {
		t.Errorf("REST: %d %s, want every turn in order", status, b)
	}
}

// TestConversationBounds: a conversation request out of bounds is a 400
// naming the field, its position and the bound, and makes no audio.
func TestConversationBounds(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true})
	turn := func(ch int, text string) string { return fmt.Sprintf(`{"channel": %d, "text": %q}`, ch, text) }
	many := func(n int, text string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = turn(i%2, text)
		}
		return strings.Join(parts, ",")
	}
	ok := turn(0, "नमस्ते") + "," + turn(1, "हाँ जी")
	for _, tc := range []struct{ body, want string }{
		{`{"sample_rate": 44100, "language_code": "hi-IN", "turns": [` + ok + `]}`, "sample_rate 44100: must be 8000 or 16000"},
		{`{"sample_rate": 8000, "turns": [` + ok + `]}`, "language_code is required"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": []}`, "turns is required"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [` + many(65, "हाँ") + `]}`, "65 turns: at most 64"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [` + ok + "," + turn(0, strings.Repeat("क", 501)) + `]}`, "turns[2]: text is 501 characters long: at most 500"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [` + many(17, strings.Repeat("a ", 250)) + `]}`, "turns hold 8500 characters of text: at most 8000"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [` + ok + "," + turn(2, "हाँ") + `]}`, "turns[2]: channel 2: must be 0 to 1"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "channels": 9, "turns": [` + ok + `]}`, "channels 9: must be 2 to 8"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "gap_ms": 100, "turns": [` + ok + `]}`, "gap_ms 100: must be 300 to 5000"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [{"text": "हाँ"}]}`, "turns[0]: channel is required"},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [{"channel": 1, "text": "  "}]}`, "turns[0]: text is empty"},
		{`{"sample_rate": 8000, "language_code": "xx-IN", "turns": [` + ok + `]}`, `turns[0]: language "xx-IN" is not supported`},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turns": [{"channel": 0, "speaker": "Nobody", "text": "हाँ"}]}`, `turns[0]: voice "Nobody" is not supported`},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "turn": []}`, `unknown field "turn"`},
		{`{"sample_rate": 8000, "language_code": "hi-IN", "gap_ms": 5000, "turns": [` + many(64, strings.Repeat("a ", 60)) + `]}`, "seconds: at most 600"},
		{`{"text": "` + strings.Repeat("a", 1<<20) + `"}`, "larger than 1048576 bytes"},
	} {
		status, b := s.send(http.MethodPost, "/_emulator/conversation", "", "application/json", strings.NewReader(tc.body))
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		if status != http.StatusBadRequest || !strings.Contains(e.Error.Message, tc.want) || !strings.HasPrefix(e.Error.Message, "conversation: ") {
			t.Errorf("%.80s...: %d %.300s, want 400 saying %q", tc.body, status, b, tc.want)
		}
	}
}

// TestConversationWithAnUnknownParty: when one channel holds speech the
// emulator did not make (its turns replaced by noise), the other
// channel's turns are still heard word for word, and the unknown party's
// turns get placeholder words, on their channel, in time order.
func TestConversationWithAnUnknownParty(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true})
	wav := conversationWAV(t, s, 8000, theCall)
	starts := turnStarts(wav, 8000, theCall)
	pcm := wav[44:]
	for i := 2; i+1 < len(pcm); i += 4 { // channel 1
		if pcm[i] != 0 || pcm[i+1] != 0 {
			v := uint16(int16((i*7919)%16000 - 8000))
			pcm[i], pcm[i+1] = byte(v), byte(v>>8)
		}
	}
	segs, _ := batchTranscript(t, s, `{"model": "stt-v2.5", "language_code": "hi-IN", "is_multi_channel": true}`, wav)
	var agent []heardSegment
	var agentTurns []callTurn
	var agentStarts []float64
	customer := 0
	last := -1.0
	for _, sg := range segs {
		if sg.Start < last {
			t.Errorf("segment %+v before %.3f: want time order", sg, last)
		}
		last = sg.Start
		switch sg.Speaker {
		case 0:
			agent = append(agent, sg)
		case 1:
			customer++
			if strings.Contains(sg.Text, "nine") || strings.Contains(sg.Text, "नंबर") {
				t.Errorf("customer segment %+v: the customer's words were heard in noise", sg)
			}
		default:
			t.Errorf("segment %+v: speaker_id not a channel", sg)
		}
	}
	for i, tn := range theCall {
		if tn.Channel == 0 {
			agentTurns, agentStarts = append(agentTurns, tn), append(agentStarts, starts[i])
		}
	}
	checkTurns(t, agent, agentTurns, agentStarts)
	if customer < 3 {
		t.Errorf("%d customer segments, want placeholder words for each of the 3 turns: %+v", customer, segs)
	}
}

// TestCopiedMonoIsOneParty: a mono synthesis copied to both channels of
// a recording (after a pause, so that the recording as a whole is not
// the synthesis) is heard once, on the first channel.
func TestCopiedMonoIsOneParty(t *testing.T) {
	s := newService(t, emulator.Options{})
	text := "मेरा नंबर है nine eight सात six five four तीन two one zero."
	status, mono := s.send(http.MethodPost, "/api/v1/tts/inference", "k", "application/json",
		jsonBody(`{"text": "`+text+`", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN", "audio_config": {"container": "wav", "sample_rate": 8000}}`))
	if status != http.StatusOK {
		t.Fatalf("synthesize: %d %s", status, mono)
	}
	pcm := mono[44:]
	var b bytes.Buffer
	pad := 4000 // half a second
	f := audio.Format{SampleRate: 8000, Channels: 2, BitsPerSample: 16, Encoding: audio.PCM}
	if err := audio.WriteWAVHeader(&b, f, int64(pad*4+len(pcm)*2)); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, pad*4))
	for i := 0; i+1 < len(pcm); i += 2 {
		b.Write([]byte{pcm[i], pcm[i+1], pcm[i], pcm[i+1]})
	}
	segs, _ := batchTranscript(t, s, `{"model": "stt-v2.5", "language_code": "hi-IN", "is_multi_channel": true}`, b.Bytes())
	checkTurns(t, segs, []callTurn{{Channel: 0, Text: text}}, []float64{0.5})
}
