package emulator_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
)

// The emulator's speech faults and recognition noise, seen as a client
// sees them: the audio of a faulted synthesis, transcribed through the
// emulator, says the faulty words; the answer is otherwise normal.

// faultText has three sentences, so that truncating the last one leaves
// the first two whole.
const faultText = "The river runs past the old mill. Children play on its banks in summer. " +
	"Every evening the miller counts his sacks of flour by lamplight."

// speechFaultList is the document of GET /_emulator/speech-faults.
type speechFaultList struct {
	Faults []struct {
		Kind        string `json:"kind"`
		Route       string `json:"route"`
		Requested   string `json:"requested"`
		Spoken      string `json:"spoken"`
		Request     string `json:"request"`
		Occurrence  int    `json:"occurrence"`
		AudioSHA256 string `json:"audio_sha256"`
	} `json:"faults"`
	Unlisted int64 `json:"unlisted"`
}

func (s *service) speechFaults() speechFaultList {
	s.t.Helper()
	status, b := s.send(http.MethodGet, "/_emulator/speech-faults", "", "", nil)
	var l speechFaultList
	if err := json.Unmarshal(b, &l); status != http.StatusOK || err != nil {
		s.t.Fatalf("GET /_emulator/speech-faults: %d %s (%v)", status, b, err)
	}
	return l
}

// speechStats is what the stats say of syntheses and their faults.
type speechStats struct {
	Syntheses        int64            `json:"syntheses"`
	BilledCharacters int64            `json:"billed_characters"`
	SpeechFaults     map[string]int64 `json:"speech_faults"`
}

func (s *service) speechStats() speechStats {
	s.t.Helper()
	var st speechStats
	if err := json.Unmarshal(s.srv.StatsJSON(), &st); err != nil {
		s.t.Fatal(err)
	}
	return st
}

// synthRequest is an en-IN synthesis of text in container at 16 kHz.
func synthRequest(text, container string) string {
	b, _ := json.Marshal(map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN",
		"audio_config": map[string]any{"container": container, "sample_rate": 16000}})
	return string(b)
}

// synthesize asks for a WAV of text and checks that the answer looks
// normal: 200 and audio/wav.
func (s *service) synthesize(text string) []byte {
	s.t.Helper()
	return s.synthesizeAs(text, "wav", "audio/wav")
}

func (s *service) synthesizeAs(text, container, ctype string) []byte {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/api/v1/tts/inference", strings.NewReader(synthRequest(text, container)))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-API-Key-ID", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ctype {
		s.t.Fatalf("synthesize %q: %d %q (%v)", text, resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	return body
}

// transcribe sends audio to REST recognition in en-IN and returns its
// transcript.
func (s *service) transcribe(name string, data []byte) string {
	s.t.Helper()
	body, ctype := form(s.t, map[string]string{"language_code": "en-IN"}, formFile{"audio_file", name, data})
	status, b := s.send(http.MethodPost, "/stt/v3", "k", ctype, body)
	transcript, ok := object(s.t, b)["transcript"].(string)
	if status != http.StatusOK || !ok {
		s.t.Fatalf("transcribe: %d %s", status, b)
	}
	return transcript
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// voices are the emulator's two voices: the synthetic one always,
// espeak-ng when it is installed.
func voices(t *testing.T) map[string]bool {
	v := map[string]bool{"synthetic": true}
	if _, err := exec.LookPath("espeak-ng"); err == nil {
		v["espeak-ng"] = false
	} else {
		t.Log("espeak-ng is not installed: the synthetic voice only")
	}
	return v
}

// TestSpeechFaultsAreInTheAudio: with one fault kind at rate 1, the audio
// of a synthesis, transcribed through the emulator, says the faulty text
// of that kind, and the listing says the same; the answer is otherwise
// normal (200, WAV, the whole text billed), and silence lasts as long as
// the speech would.
func TestSpeechFaultsAreInTheAudio(t *testing.T) {
	words := strings.Fields(faultText)
	check := map[string]func(t *testing.T, heard string){
		emulator.FaultTruncate: func(t *testing.T, heard string) {
			// Two whole sentences of 7 words, and 5 of the third's 11.
			if want := strings.Join(words[:14+5], " "); heard != want {
				t.Errorf("heard %q, want %q", heard, want)
			}
		},
		emulator.FaultDropHalf: func(t *testing.T, heard string) {
			if want := strings.Join(words[:len(words)/2], " "); heard != want {
				t.Errorf("heard %q, want %q", heard, want)
			}
		},
		emulator.FaultReplace: func(t *testing.T, heard string) {
			got := strings.Fields(heard)
			if len(got) != len(words) {
				t.Fatalf("heard %d words, want %d: %q", len(got), len(words), heard)
			}
			var diff []int
			for i := range words {
				if got[i] != words[i] {
					diff = append(diff, i)
				}
			}
			if len(diff) < 3 || len(diff) > 5 || diff[len(diff)-1]-diff[0] != len(diff)-1 {
				t.Errorf("words %v differ in %q: want one run of 3 to 5", diff, heard)
			}
		},
		emulator.FaultSilence: func(t *testing.T, heard string) {
			if heard != "" {
				t.Errorf("heard %q in silence", heard)
			}
		},
	}
	for voice, noEspeak := range voices(t) {
		clean := newService(t, emulator.Options{NoEspeak: noEspeak}).synthesize(faultText)
		for _, kind := range []string{emulator.FaultTruncate, emulator.FaultReplace, emulator.FaultSilence, emulator.FaultDropHalf} {
			t.Run(voice+"/"+kind, func(t *testing.T) {
				opts := emulator.Options{NoEspeak: noEspeak, Seed: 3}
				*map[string]*float64{emulator.FaultTruncate: &opts.TruncateRate, emulator.FaultReplace: &opts.ReplaceRate,
					emulator.FaultSilence: &opts.SilenceRate, emulator.FaultDropHalf: &opts.DropHalfRate}[kind] = 1
				s := newService(t, opts)
				wav := s.synthesize(faultText)
				heard := s.transcribe("fault.wav", wav)
				check[kind](t, heard)
				soundsFaulty(t, kind, wav, clean)
				l := s.speechFaults()
				if len(l.Faults) != 1 {
					t.Fatalf("listed %+v, want one fault", l)
				}
				f := l.Faults[0]
				if f.Kind != kind || f.Requested != faultText || f.Spoken != heard || f.Route != "POST /api/v1/tts/inference" ||
					f.AudioSHA256 != sha256hex(wav) || f.Occurrence != 1 || f.Request == "" {
					t.Errorf("listed %+v; heard %q, audio %s", f, heard, sha256hex(wav))
				}
				st := s.speechStats()
				if want := map[string]int64{kind: 1}; !cmp.Equal(st.SpeechFaults, want) || st.Syntheses != 1 || st.BilledCharacters != int64(len(faultText)) {
					t.Errorf("stats %+v, want faults %v, 1 synthesis billed %d characters", st, want, len(faultText))
				}
			})
		}
	}
}

// soundsFaulty checks the sound itself, apart from what recognition makes
// of it, against the clean speech: a cut text is shorter, replaced words
// sound otherwise, silence is as long as the speech and all zero.
func soundsFaulty(t *testing.T, kind string, wav, clean []byte) {
	t.Helper()
	switch kind {
	case emulator.FaultTruncate, emulator.FaultDropHalf:
		if float64(len(wav)) > 0.9*float64(len(clean)) {
			t.Errorf("cut speech is %d bytes, the whole %d", len(wav), len(clean))
		}
	case emulator.FaultReplace:
		if bytes.Equal(wav, clean) {
			t.Errorf("replaced words sound as the clean text does")
		}
	case emulator.FaultSilence:
		const header = 44
		if len(wav) != len(clean) || len(bytes.Trim(wav[header:], "\x00")) != 0 {
			t.Errorf("silence is %d bytes, not all zero after the header; the speech %d", len(wav), len(clean))
		}
	}
}

// TestSpeechFaultReplacedWordsAreHeardBesideCleanAudio: a text
// synthesized again until one take is faulted and one clean (a repeated
// request draws afresh) gives two recordings of almost the same sound;
// each, in mp3 too, is heard as what it says, not as the other.
func TestSpeechFaultReplacedWordsAreHeardBesideCleanAudio(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatalf("ffmpeg is required (scripts/deps.sh installs it): %v", err)
	}
	s := newService(t, emulator.Options{NoEspeak: true, ReplaceRate: 0.5, Seed: 11})
	takes := map[bool][]byte{} // by faulted
	var spoken string
	for i := 1; i <= 12 && len(takes) < 2; i++ {
		mp3 := s.synthesizeAs(faultText, "mp3", "audio/mpeg")
		l := s.speechFaults()
		faulted := len(l.Faults) > 0 && l.Faults[len(l.Faults)-1].Occurrence == i
		if faulted {
			spoken = l.Faults[len(l.Faults)-1].Spoken
		}
		takes[faulted] = mp3
	}
	if len(takes) != 2 {
		t.Fatalf("12 takes at rate 0.5 were all faulted, or all clean")
	}
	if got := s.transcribe("clean.mp3", takes[false]); got != faultText {
		t.Errorf("the clean take is heard as %q", got)
	}
	if got := s.transcribe("faulted.mp3", takes[true]); got != spoken || got == faultText {
		t.Errorf("the faulted take is heard as %q, want %q", got, spoken)
	}
}

// TestSpeechFaultsOverStreams: SSE and the synthesis WebSocket carry the
// fault as inference does, and the listing names their route and the
// hash of the audio they carried.
func TestSpeechFaultsOverStreams(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true, DropHalfRate: 1, Profile: emulator.ProfileDocumented})
	want := strings.Join(strings.Fields(faultText)[:len(strings.Fields(faultText))/2], " ")

	wav := sseAudio(t, s, synthRequest(faultText, "wav"))
	if got := s.transcribe("sse.wav", wav); got != want {
		t.Errorf("SSE audio heard as %q, want %q", got, want)
	}
	pcm := wsAudio(t, s, synthRequest(faultText, "raw"))
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}, int64(len(pcm))); err != nil {
		t.Fatal(err)
	}
	b.Write(pcm)
	if got := s.transcribe("ws.wav", b.Bytes()); got != want {
		t.Errorf("WebSocket audio heard as %q, want %q", got, want)
	}
	byRoute := map[string]string{}
	for _, f := range s.speechFaults().Faults {
		byRoute[f.Route] = f.AudioSHA256
	}
	if d := cmp.Diff(map[string]string{"POST /api/v1/tts/sse": sha256hex(wav), "GET /api/v1/tts": sha256hex(pcm)}, byRoute); d != "" {
		t.Errorf("listed audio by route (-want +got):\n%s", d)
	}
}

// sseAudio joins the chunks of a documented SSE synthesis.
func sseAudio(t *testing.T, s *service, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url+"/api/v1/tts/sse", strings.NewReader(body))
	req.Header.Set("X-API-Key-ID", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var joined []byte
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		var chunk struct {
			Audio   string `json:"audio"`
			IsFinal bool   `json:"is_final"`
		}
		if !ok || json.Unmarshal([]byte(data), &chunk) != nil || chunk.Audio == "" {
			continue
		}
		a, err := base64.StdEncoding.DecodeString(chunk.Audio)
		if err != nil {
			t.Fatal(err)
		}
		joined = append(joined, a...)
	}
	return joined
}

// wsAudio joins the binary frames of a documented synthesis WebSocket.
func wsAudio(t *testing.T, s *service, body string) []byte {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.url, "http")+"/api/v1/tts", http.Header{"X-API-Key-ID": {"k"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteMessage(websocket.TextMessage, []byte(body)); err != nil {
		t.Fatal(err)
	}
	var pcm []byte
	for {
		kind, data, err := conn.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("read: %v", err)
			}
			return pcm
		}
		if kind == websocket.BinaryMessage {
			pcm = append(pcm, data...)
		}
	}
}

// parallelTakes synthesizes each text twice on a new emulator with opts,
// 16 requests at a time in an order shuffled by order, and returns the
// hashes of each text's two takes (sorted: two identical requests in
// flight at once may swap), the listing and the stats' fault counts.
func parallelTakes(t *testing.T, opts emulator.Options, texts []string, order uint64) (map[string][]string, speechFaultList, map[string]int64) {
	t.Helper()
	s := newService(t, opts)
	jobs := append(slices.Clone(texts), texts...)
	rand.New(rand.NewPCG(order, order)).Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	takes := map[string][]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan string)
	errs := make(chan error, len(jobs))
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for text := range next {
				wav, err := postSynthesis(s.url, synthRequest(text, "wav"))
				if err != nil {
					errs <- err
					continue
				}
				mu.Lock()
				takes[text] = append(takes[text], sha256hex(wav))
				mu.Unlock()
			}
		}()
	}
	for _, text := range jobs {
		next <- text
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, h := range takes {
		slices.Sort(h)
	}
	return takes, s.speechFaults(), s.speechStats().SpeechFaults
}

// postSynthesis is a synthesis from any goroutine: it returns its error.
func postSynthesis(url, body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, url+"/api/v1/tts/inference", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-Key-ID", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("synthesis answered %d: %s", resp.StatusCode, b)
	}
	return b, err
}

// TestSpeechFaultsRepeatUnderParallelRequests: two emulators with the
// same seed, each asked for the same 40 texts twice, 16 at a time and in
// different orders, fault the same takes of the same texts alike (same
// audio, same listing, same counts); a second take of a text draws
// afresh, so some texts have one take faulted and one clean; another
// seed faults other takes.
func TestSpeechFaultsRepeatUnderParallelRequests(t *testing.T) {
	var texts []string
	for i := range 40 {
		texts = append(texts, fmt.Sprintf("Prompt number %d says hello. It asks the caller to hold the line for a moment.", i))
	}
	opts := emulator.Options{NoEspeak: true, Seed: 5, TruncateRate: 0.12, ReplaceRate: 0.12, SilenceRate: 0.12, DropHalfRate: 0.12}
	takesA, listA, countsA := parallelTakes(t, opts, texts, 1)
	takesB, listB, countsB := parallelTakes(t, opts, texts, 2)
	if d := cmp.Diff(takesA, takesB); d != "" {
		t.Errorf("the same seed gave other audio in another order (-first +second):\n%s", d)
	}
	if d := cmp.Diff(listA, listB); d != "" {
		t.Errorf("the same seed listed other faults in another order (-first +second):\n%s", d)
	}
	if !cmp.Equal(countsA, countsB) {
		t.Errorf("fault counts %v and %v", countsA, countsB)
	}
	byKind := map[string]int64{}
	faultedTakes := map[string]int{}
	for _, f := range listA.Faults {
		byKind[f.Kind]++
		faultedTakes[f.Requested]++
		if f.AudioSHA256 == "" || !slices.Contains(takesA[f.Requested], f.AudioSHA256) {
			t.Errorf("listed %+v: its audio is not among the takes of its text", f)
		}
	}
	if !cmp.Equal(byKind, countsA) || len(byKind) != 4 {
		t.Errorf("listed by kind %v, stats count %v: want all four kinds, alike", byKind, countsA)
	}
	oneOfTwo := 0
	for _, n := range faultedTakes {
		if n == 1 {
			oneOfTwo++
		}
	}
	if oneOfTwo == 0 {
		t.Errorf("no text has one take faulted and one clean: %v", faultedTakes)
	}
	opts.Seed = 6
	_, listC, _ := parallelTakes(t, opts, texts, 1)
	if cmp.Equal(listA, listC) {
		t.Errorf("seeds 5 and 6 faulted alike")
	}
}

// TestRecognitionNoise: with a noise rate, transcripts of the emulator's
// own clean speech have some single words wrong (as many words, a few
// substituted, never two in a row) at about that rate; the same audio is heard alike each
// time and by another emulator of the same seed; a rate of 0 hears every
// word.
func TestRecognitionNoise(t *testing.T) {
	var texts []string
	for i := range 12 {
		texts = append(texts, fmt.Sprintf("Caller %d is asked to please hold while the support team checks the order and the payment.", i))
	}
	heard := func(opts emulator.Options) (words, wrong int, transcripts []string) {
		s := newService(t, opts)
		for _, text := range texts {
			wav := s.synthesize(text)
			got := s.transcribe("a.wav", wav)
			if again := s.transcribe("b.wav", wav); again != got {
				t.Errorf("the same audio heard as %q, then %q", got, again)
			}
			want, gotWords := strings.Fields(text), strings.Fields(got)
			if len(gotWords) != len(want) {
				t.Fatalf("heard %q for %q: not a word for a word", got, text)
			}
			for i := range want {
				if gotWords[i] != want[i] {
					wrong++
					if i > 0 && gotWords[i-1] != want[i-1] {
						t.Errorf("heard %q for %q: two words in a row misheard", got, text)
					}
				}
			}
			words += len(want)
			transcripts = append(transcripts, got)
		}
		if st := s.speechStats(); len(st.SpeechFaults) != 0 {
			t.Errorf("recognition noise counted as speech faults: %v", st.SpeechFaults)
		}
		return words, wrong, transcripts
	}
	noisy := emulator.Options{NoEspeak: true, Seed: 9, NoiseRate: 0.1}
	words, wrong, first := heard(noisy)
	if rate := float64(wrong) / float64(words); rate < 0.04 || rate > 0.2 {
		t.Errorf("%d of %d words misheard (%.3f) at a noise rate of 0.1", wrong, words, rate)
	}
	if _, _, second := heard(noisy); !slices.Equal(first, second) {
		t.Errorf("another emulator of the same seed heard otherwise:\n%q\n%q", first, second)
	}
	if _, wrong, _ := heard(emulator.Options{NoEspeak: true, Seed: 9}); wrong != 0 {
		t.Errorf("%d words misheard without noise", wrong)
	}
}

// TestSpeechFaultsResetAndBounds: POST /_emulator/reset empties the list
// and the counts and forgets the syntheses made; Start refuses rates out of bounds, naming them.
func TestSpeechFaultsResetAndBounds(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true, SilenceRate: 1})
	s.synthesize(faultText)
	if l := s.speechFaults(); len(l.Faults) != 1 {
		t.Fatalf("listed %+v", l)
	}
	if status, b := s.send(http.MethodPost, "/_emulator/reset", "", "", nil); status != http.StatusNoContent {
		t.Fatalf("reset: %d %s", status, b)
	}
	if l, st := s.speechFaults(), s.speechStats(); len(l.Faults) != 0 || len(st.SpeechFaults) != 0 {
		t.Errorf("after reset: listed %+v, counted %v", l, st.SpeechFaults)
	}
	s.synthesize(faultText)
	if l := s.speechFaults(); len(l.Faults) != 1 || l.Faults[0].Occurrence != 1 {
		t.Errorf("the first synthesis after reset: listed %+v, want occurrence 1 as on a fresh emulator", l)
	}
	for _, tc := range []struct {
		opts emulator.Options
		want string
	}{
		{emulator.Options{TruncateRate: 1.5}, "emulator: truncate rate 1.5: must be between 0 and 1"},
		{emulator.Options{SilenceRate: 0.6, DropHalfRate: 0.6}, "emulator: speech fault rates add up to 1.2: must not exceed 1"},
		{emulator.Options{NoiseRate: -0.1}, "emulator: recognition noise rate -0.1: must be between 0 and 1"},
	} {
		r, err := emulator.Start(tc.opts, "127.0.0.1:0")
		if err == nil {
			r.Close()
			t.Errorf("%+v: started", tc.opts)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("error %q, want %q", err, tc.want)
		}
	}
}
