// Package synth is the emulator's synthesis half: POST /api/v1/tts/inference,
// POST /api/v1/tts/sse, the /api/v1/tts WebSocket and
// POST /api/v1/tts/voice-clone/embeddings, per
// service-docs/speech-synthesis.md, with real audio in every container.
//
// Audio. With espeak-ng on the PATH (and Options.NoEspeak unset) the text
// is spoken by espeak-ng (hi-IN hi, en-IN en-gb, ta-IN ta, ... ; auto,
// hi-en, IND-IN and vc-v1 without a language pick the voice from the
// script of the text), its 22050 Hz output resampled by audio's resampler.
// Otherwise a deterministic synthetic voice renders one short voiced unit
// per character, so the energy envelope follows the text. The voice name
// (or, for vc-v1, the embedding) sets the pitch. Identical requests give
// identical bytes. wav, raw, mulaw and alaw are written here; mp3
// (libmp3lame) and ogg (libopus) by an ffmpeg subprocess fed as a stream,
// with bitexact flags. Without ffmpeg those two containers answer 503
// SERVICE_UNAVAILABLE saying the emulator needs ffmpeg. Every rendering's
// envelope is registered so that recognition can transcribe it back.
//
// Speech faults (faults.go; Options.TruncateRate and the rates after it)
// are drawn for each validated request, on every transport, from the
// seed, the request (text, model, voice, language, speed, embedding,
// format) and how many times it was synthesized before. A fault changes
// the text rendered, not the text billed or echoed: truncate keeps the
// first half of the last sentence's words (rounded down); replace turns a
// run of 3 to 5 words (all of a text of 3 or 4) into words of their script;
// drop_half keeps the first half of all the words (rounded down); a cut
// drops the tags after it too; silence is as long as the speech. A fault
// that would leave no word, lose fewer than two, or change none, is not
// applied. Each applied
// fault is counted and listed, with the SHA-256 of the audio once it was
// all sent.
//
// Choices where the documents are silent:
//   - audio_config omitted: wav, 48000 Hz, mono, 16-bit; a sample_rate
//     inside 8000-48000 but outside the supported set is 400.
//   - speed is accepted by tts-v2.5, tts-v3.0 and vc-v1, refused (400) by
//     tts-v2.0; language is required only by tts-v2.5; tts-v3.0 and vc-v1
//     accept the tts-v2.5 language set.
//   - voices: tts-v2.0 its four; tts-v2.5 the 42 the service owner's
//     client names (the five example names among them); tts-v3.0 Shivani,
//     Avinash and a few more; Options.ExtraVoices adds names. vc-v1 with a
//     voice is 400.
//   - tags: only tts-v3.0 renders them; every <...> is removed for the
//     other models; text that is empty once tags are removed is 400 for
//     every model. Delivery tags (<whispers>, <shouting>, <excited>, <slow>)
//     apply until the next tag; sound tags (<laugh>, <sigh>, ...) insert a
//     sound and colour what follows; <pauses> is 0.35 s of silence.
//   - sample_width applies to wav and raw (8-bit unsigned, 16/24/32-bit
//     signed little-endian); pcm_s16le needs width 2; bitrate is accepted
//     and ignored except for mp3 (libmp3lame caps it at low rates); mp3
//     carries at most 2 channels; Opus always decodes at 48 kHz.
//   - odd-length WAV data carries its RIFF pad byte.
//   - SSE: chunks of about one second of audio (base64 lines may exceed
//     64 KiB); complete carries chunk_index = last chunk + 1; validation
//     errors are answered as HTTP 400 before the stream; a failure during
//     the stream is an error event {"type", "message"}.
//   - WebSocket: one JSON request per connection; binary frames of linear
//     PCM at the request's rate, channels and width (16-bit at 8000 Hz for
//     mulaw and alaw, 16-bit for mp3 and ogg: the client writes the
//     container), then close 1000; an invalid request gets a text message
//     {"type": "error", "data": {"type", "message"}} and close 1008.
//   - the live profile (Options.Profile live): the models tts-v2.0 and
//     tts-v2.5 are known only by their live names, timbre-v2.0 (also
//     vachana-voice-v3) and timbre-v2.5, and render as the documented ones;
//     their documented names are 400 like any unknown model. timbre-v2.5
//     has the live service's 42 voices, timbre-v2.0 the four of tts-v2.0;
//     speed and the language list apply to timbre-v2.5 as to tts-v2.5.
//     container ogg is 400 with any encoding: Opus is container raw with
//     encoding oggopus, an Ogg Opus file. Each SSE wav chunk is a whole WAV
//     file (the first header-only) and about half the requests use the
//     quick-start event form; the WebSocket sends JSON text frames whose
//     pieces are whole WAV files, the last piece inside complete.
//   - embeddings: a WAV (readable header) or MP3 reference, else 400; the
//     embedding is 768 float32 values derived from the recording's bytes,
//     base64, shape [1, 768], dtype float32.
//   - billing: every code point of text, tags included, when the response
//     starts (a dropped response did the work and is billed).
package synth
