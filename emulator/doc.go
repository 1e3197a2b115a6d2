// Package emulator is a faithful local implementation of the speech service
// of service-docs/ as an http.Handler: every synthesis and recognition
// endpoint with its validation, limits, status codes, error bodies, state
// machines, presigned URLs and webhooks, plus fault knobs and
// GET /_emulator/stats. Tests, benchmarks and offline runs point the real
// client at it; the client and the emulator never share code beyond HTTP.
// With Options.Profile live it behaves as the live service does where that
// differs from the documents: synthesis model names, voices and the Opus
// rule, stream framing, the REST recognition answer and the realtime
// recognition protocol at /stt/v3/stream. Every answer names the profile
// served in the X-Emulator-Profile header (HeaderProfile), which the
// service itself never sends, so that a client of the other profile can
// say so rather than fail call by call.
//
// It can fail like a real service in what it says, too. Speech faults
// (Options.TruncateRate and the rates after it) make the audio of a
// synthesis say something other than its text, which the emulator's own
// recognition then reports word for word; recognition noise
// (Options.NoiseRate) mishears a few words of the speech it made. Each
// faulted synthesis is listed at GET /_emulator/speech-faults.
//
// It hears call recordings, too. Multi-channel audio that is not, as a
// whole, audio the emulator synthesized is heard channel by channel
// (recog's doc.go says how): each turn it synthesized is found on its
// channel and given its words and its real times, and the turns of all
// channels are merged by start time. POST /_emulator/conversation
// (ConversationPath; 'voxform emulator conversation' calls it) makes such
// a recording: {sample_rate, language_code, turns: [{channel, speaker,
// text}], channels, gap_ms, model} answers a WAV of 16-bit PCM with one
// channel per party (2 by default, at most 8), in which the turns follow
// each other with gap_ms of silence (700 by default, 300 to 5000) between
// them, before the first and after the last, every other channel silent
// meanwhile. Each turn is rendered as a synthesis of its text in voice
// speaker (of model: tts-v2.5 by default, timbre-v2.5 as the live
// profile names it; Nalini on even channels and Deepak on odd ones when
// unset) and language_code would be, and so remembered; it is not
// billed, counted in the stats or drawn a speech fault. The documents are silent on all of it; the emulator chooses:
//   - sample_rate 8000 or 16000 (telephone and wideband recordings);
//   - at most 64 turns, 500 characters a turn and 8000 in all, a body of
//     1 MiB, and 600 seconds of recording (MaxConversationWAV bytes);
//   - a problem is a 400 INVALID_REQUEST_ERROR whose message begins
//     "conversation: " and names the field and the turn (turns[2]: ...);
//   - the emulator remembers what it synthesized only while it runs:
//     asking a fresh emulator for the same conversation renders the same
//     recording (with the same espeak-ng), which it then hears.
//
// A batch job's transcript has no ITN: number words ("nine eight सात")
// come back as they were spoken; with is_multi_channel each turn's
// speaker_id is its channel (the older batch, which names at most two
// speakers, the channel modulo 2), with diarization of num_speakers the
// channel modulo num_speakers, else 0; REST, which has no such field,
// hears every turn in order.
package emulator
