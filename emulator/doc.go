// Package emulator is a faithful local implementation of the speech service
// of service-docs/ as an http.Handler: every synthesis and recognition
// endpoint with its validation, limits, status codes, error bodies, state
// machines, presigned URLs and webhooks, plus fault knobs and
// GET /_emulator/stats. Tests, benchmarks and offline runs point the real
// client at it; the client and the emulator never share code beyond HTTP.
package emulator
