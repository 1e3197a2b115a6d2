// Package recog is the emulator's recognition half: POST /stt/v3, the /stt/v3
// WebSocket, the older batch pair and the batch jobs API with its state
// machine, presigned transcript URLs and webhooks, per
// service-docs/speech-recognition.md.
package recog
