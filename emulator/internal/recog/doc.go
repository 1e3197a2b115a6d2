// Package recog is the emulator's recognition half: POST /stt/v3, the /stt/v3
// WebSocket, the older batch pair and the batch jobs API with its state
// machine, presigned transcript URLs and webhooks, per
// service-docs/speech-recognition.md and SPEC section 8a.
//
// Transcripts: uploaded or fetched audio is decoded (WAV in any encoding,
// MP3), its energy envelope is looked up among the audio the emulator
// synthesized (allowing a codec's leading delay), and a match returns the
// text that was spoken, in sentences spread over the duration. Other audio
// gets a deterministic placeholder from the content hash, about 2.2 words a
// second in the requested language's script. Silence and steady tones
// have no speech: empty for REST and realtime, a failed result in the older
// batch, FAILED "transcript empty after 3 retries" in batch jobs.
//
// Where the documents are silent the emulator chooses:
//   - realtime: query parameters language_code (required) and sample_rate
//     (16000 default, or 8000); frames must be binary and exactly 1024 bytes
//     (else close 1008); an empty binary frame ends the audio; all transcript
//     messages follow it, then a 1000 close; with LiveQuirks the same
//     endpoint is also served at /stt/v3/stream, where the live service
//     has been seen;
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
//   - ITN (format=transcribe): English and Hindi number words, see itn.go.
package recog
