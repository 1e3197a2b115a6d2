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
package emulator
