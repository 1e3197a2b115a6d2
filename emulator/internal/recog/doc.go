// Package recog is the emulator's recognition half: POST /stt/v3, the /stt/v3
// WebSocket, the older batch pair and the batch jobs API with its state
// machine, presigned transcript URLs and webhooks, per
// service-docs/speech-recognition.md and SPEC section 8a.
//
// Transcripts: uploaded or fetched audio is decoded (WAV in any encoding,
// MP3), its energy envelope is looked up among the audio the emulator
// synthesized (allowing a codec's leading delay), and a match returns the
// text that was spoken, in sentences spread over the duration, heard with
// the recognition noise of Options.NoiseRate (emu.Env.Hear). Other audio
// gets a deterministic placeholder from the content hash, about 2.2 words a
// second in the requested language's script. Silence and steady tones
// have no speech: empty for REST and realtime, a failed result in the older
// batch, FAILED "transcript empty after 3 retries" in batch jobs.
//
// Where the documents are silent the emulator chooses:
//   - realtime: query parameters language_code (required) and sample_rate
//     (16000 default, or 8000); frames must be binary and exactly 1024 bytes
//     (else close 1008); an empty binary frame ends the audio; all transcript
//     messages follow it, then a 1000 close. A last frame padded with
//     silence is allowed for when the audio is looked up;
//   - the live profile (Options.Profile live) serves realtime recognition
//     at /stt/v3/stream as the live service speaks it (live.go): the key
//     and the handshake headers lang_code (one code), x-sample-rate (8000,
//     16000, 44100 or 48000, required), x-format and itn_native_numerals
//     are checked after the upgrade, a problem being an error message
//     {type, message, timestamp} and close 1008; then connected with
//     config {sample_rate, chunk_size: 512}. Frames must be binary and
//     1024 bytes (an empty one too is an error: no message ends the
//     audio). A frame whose RMS is over -40 dBFS is speech: it opens a
//     segment (vad_start, speech_start); half a second of silence, or no
//     frame for the quiet time (500 ms of service time, at least 40 ms),
//     ends it (speech_end, vad_end) and, when it holds words, processing
//     and a transcript with the documented fields follow. A segment's
//     audio runs from the end of the previous one, so that the durations
//     add up. Audio the emulator synthesized is recognised from its
//     beginning, each segment getting the sentences whose middle it has
//     heard; other audio gets placeholder words per segment. The session
//     ends when the client closes, or with 1000 after 10 s of service time
//     (at least 1 s) without a frame; the audio received is billed then
//     (not when the connection was cut by -drop-rate, which cuts it as the
//     first transcript is due). The live REST answer has no timestamp and
//     adds model (stt-v3), processing_time and end_to_end_latency
//     (seconds);
//   - REST and older batch: a language_code list is refused as one code
//     per request;
//   - batch jobs validation errors are 400 INVALID_REQUEST, upload limits
//     400 FILE_TOO_LARGE, ZIP_TOO_LARGE, TOO_MANY_FILES and AUDIO_TOO_LONG;
//     query parameters (limit, cursor, status) and placeholder ids are 422
//     VALIDATION_ERROR; the config part must be application/json;
//   - job timing in service time (divided by TimeScale): STARTING 2 s,
//     QUEUED 2 s, then four workers each taking 2 s plus a tenth of a file's
//     duration (plus a quarter with with_denoise); CANCELLING 2 s;
//   - the files listing shows files once they have a final status;
//   - unsupported upload formats are SKIPPED records, not a 400;
//   - URL sources are fetched only from loopback hosts; any other host is
//     SKIPPED "ENOTFOUND: ..."; HTTP errors "HTTP_<code>: ..."; a prefix
//     URL is expanded from the HTML or S3-style listing it serves;
//   - durations come from the WAV header when it declares more than the
//     samples present (a truncated recording keeps its declared length);
//   - ITN (format=transcribe): English and Hindi number words, see itn.go;
//   - multi-channel audio (islands.go): audio of 2 to 8 channels whose
//     downmix is not audio the emulator synthesized is heard channel by
//     channel. A channel is cut into runs of sound at silences of 200 ms
//     (a window is silent under -60 dBFS or under 0.5 % of the channel's
//     peak); from each run on, the longest group of up to 24 runs whose
//     speech (from its first to its last window at 2 % of its peak)
//     matches a synthesis in length (within three windows) and in the
//     shape of its whole envelope (aligned to a quarter window, up to
//     two windows either way) is that synthesis's turn; a run that starts
//     none and lasts 200 ms or more gets placeholder words. A turn's
//     segments (its sentences) span its speech, from its first to its
//     last window. The same synthesis heard at the same time (within two
//     windows) on several channels, a mono recording copied to each, is
//     one turn, on the first of them. When no turn of any channel is
//     known, the audio is heard as before (its downmix); nor is a channel
//     of more than 400 runs looked up;
//   - speaker_id of a turn heard on channel c: c with is_multi_channel
//     in batch jobs, c modulo 2 in the older batch, c modulo
//     num_speakers with diarization, else 0; REST joins every turn's text
//     in time order.
package recog
