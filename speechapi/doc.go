// Package speechapi is a typed client for every endpoint of the speech
// service described in service-docs/speech-synthesis.md and
// service-docs/speech-recognition.md: REST synthesis, server-sent-event and
// WebSocket synthesis, speaker embeddings, REST, realtime and batch
// recognition, and presigned transcript downloads. Config.Profile says
// whether the service is the documented one or the live one, which differs
// in its realtime recognition protocol (see TranscribeRealtime) and in the
// fields of its REST recognition answer.
//
// Promises:
//   - every call takes a context and streams audio and transcripts to the
//     caller's writer; nothing buffers a whole file;
//   - the API key is sent as X-API-Key-ID (x-api-key-id on WebSocket
//     handshakes) and never on presigned downloads; it never appears in an
//     error message, not even when a server echoes it (as sent, URL-encoded,
//     JSON-escaped or in base64): all server text is redacted where it
//     enters an error;
//   - server text in an error is an excerpt (internal/untrusted): its
//     controls and escape sequences escaped, at most 200 characters of it
//     and the size of what was cut;
//   - only https and wss URLs are used, except for loopback addresses;
//   - every documented error body becomes one *Error with status, type and
//     message;
//   - the client is the one retry layer: each method is one operation of
//     at most Config.Retries+1 requests, retried on 429, 500, 502, 503, 504,
//     connection errors (as go-retryablehttp's DefaultRetryPolicy judges
//     them: not a redirect loop, an untrusted certificate or a header
//     net/http refuses) and answers cut mid-body (a stream from an empty
//     output), waiting exactly as long as Retry-After asks, else with
//     exponential backoff and jitter; a cut answer is not asked for again
//     where that would start billed work twice (an older batch submit);
//   - with a Breaker, a service that fails operation after operation is
//     recognised as down and no new call is sent to it;
//   - a stream that ends before its documented completion is an error, never
//     a short result;
//   - no host may stay silent longer than Config.Timeout: to connect, to
//     answer, within a body or a WebSocket session, presigned storage
//     included; a silent host gives a *TimeoutError naming it;
//   - what a host sends is bounded (limits.go): a transcript, an SSE line, a
//     WebSocket message, a JSON answer, a job's files listing (a job holds
//     at most MaxJobFiles files); a larger answer is a *LimitError naming
//     the host and the limit, never read into memory beyond it.
//
// speechapi never imports the emulator: the two meet only over HTTP and
// WebSocket.
package speechapi
