// Package synth is the emulator's synthesis half: POST /api/v1/tts/inference,
// POST /api/v1/tts/sse, the /api/v1/tts WebSocket and
// POST /api/v1/tts/voice-clone/embeddings, per
// service-docs/speech-synthesis.md, with real audio in every container.
package synth
