package contract

// Recognition defaults (speech-recognition.md).
const (
	// RealtimeDefaultRate is the sample rate realtime recognition is sent
	// at when the manifest names none (16 or 8 kHz PCM).
	RealtimeDefaultRate = 16000
)
