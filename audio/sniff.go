package audio

import (
	"bytes"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// Container names a file format. The values are the names the manifest and
// the service documents use.
type Container string

// Containers Sniff recognises, and the headerless ones voxform writes.
const (
	ContainerWAV     Container = "wav"
	ContainerMP3     Container = "mp3"
	ContainerOgg     Container = "ogg"
	ContainerFLAC    Container = "flac"
	ContainerAAC     Container = "aac" // ADTS
	ContainerM4A     Container = "m4a" // ISO base media (ftyp): m4a, mp4
	ContainerWebM    Container = "webm"
	ContainerAMR     Container = "amr"
	ContainerUnknown Container = "unknown"

	// Headerless audio: never returned by Sniff, used by ProbeRaw and Validate.
	ContainerRaw   Container = "raw"
	ContainerMuLaw Container = "mulaw"
	ContainerALaw  Container = "alaw"
)

// SniffLen is how many leading bytes Sniff needs to tell every container
// apart. Fewer still work for most.
const SniffLen = 16

// Sniff names the container that head, the first bytes of a file, starts
// with. An ID3v2-prefixed file is "mp3" (Sniff cannot see past the tag;
// ProbeReader can, and tells ID3-prefixed AAC or FLAC apart).
func Sniff(head []byte) Container {
	switch {
	case IsWAV(head), len(head) >= 12 && string(head[0:4]) == "RF64" && string(head[8:12]) == "WAVE":
		return ContainerWAV
	case bytes.HasPrefix(head, []byte("ID3")):
		return ContainerMP3
	case bytes.HasPrefix(head, []byte("OggS")):
		return ContainerOgg
	case bytes.HasPrefix(head, []byte("fLaC")):
		return ContainerFLAC
	case bytes.HasPrefix(head, []byte("#!AMR")):
		return ContainerAMR
	case bytes.HasPrefix(head, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return ContainerWebM
	case len(head) >= 8 && string(head[4:8]) == "ftyp":
		return ContainerM4A
	case isADTS(head):
		return ContainerAAC
	case len(head) >= 4:
		if _, ok := mp3.ParseHeader(head); ok {
			return ContainerMP3
		}
	}
	return ContainerUnknown
}

// isADTS reports whether b starts with an AAC ADTS frame header: a 12-bit
// sync word, layer 0 and a valid sampling-frequency index.
func isADTS(b []byte) bool {
	return len(b) >= 7 && b[0] == 0xFF && b[1]&0xF6 == 0xF0 && (b[2]>>2)&0x0F < 13
}

// String returns the container's name.
func (c Container) String() string { return string(c) }
