package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/deliver"
)

// RecordingConverter identifies voxform's conversion of a recording to a
// declared format (RecordingConversion and the executor's converter). A
// recorded synthesis's request carries it, so that a change of what the
// conversion makes replaces the outputs made by the old one. Bump it when
// the converted bytes of some recording would change.
const RecordingConverter = "voxform-pcm/1"

// Conversion is how a recording becomes the output of a declared format
// (RecordingConversion).
type Conversion struct {
	// Copy: the recording is the output byte for byte.
	Copy bool
	// From and To are the sample formats converted between (not set with
	// Copy).
	From, To audio.Format
	// Lossy, when set, says why the conversion loses something (a rate,
	// channel or G.711 change, a narrower width, an encoding): it is made
	// only when recorded: declares convert: true.
	Lossy string
	// Encode, when set, is the lossy codec container ("mp3", "ogg") the
	// recording's samples are encoded to by the outside encoder (To is
	// then not set): RecordingProfile says how.
	Encode string
}

// RecordingConversion says how a recording whose probe is info becomes
// audio of the declared format f, or why it cannot. A recording in f's
// own form is copied (a WAV of f's rate, channels, width and linear PCM;
// an MP3 or Ogg file for an mp3 or ogg output); otherwise the recording
// must be WAV: its samples are converted (f headerless or WAV) or encoded
// (f mp3 or ogg, always lossy). A conversion is lossless when the rate
// and channels are kept and each sample is kept exactly: the same
// encoding and width (a WAV's samples as raw, mu-law or A-law audio),
// linear PCM to a wider or equal width, or G.711 to linear PCM of 16
// bits or more.
func RecordingConversion(info audio.Info, f Format) (Conversion, error) {
	encoded := f.Container == MP3 || f.Container == Ogg
	if encoded && string(info.Container) == f.Container {
		return Conversion{Copy: true}, nil
	}
	if info.Container != audio.ContainerWAV {
		return Conversion{}, fmt.Errorf("a %s recording cannot be made into %s audio: a recording converted by voxform is a WAV file", info.Container, f.Container)
	}
	from, err := wavFormat(info)
	if err != nil {
		return Conversion{}, err
	}
	if encoded {
		return Conversion{From: from, Encode: f.Container, Lossy: fmt.Sprintf("an %s encoding", encodingName[f.Container])}, nil
	}
	to, err := f.Audio()
	if err != nil {
		return Conversion{}, err
	}
	if f.Container == WAV && from == to {
		return Conversion{Copy: true}, nil
	}
	return Conversion{From: from, To: to, Lossy: lossOf(from, to)}, nil
}

// encodingName names the lossy encoding of each encoded container.
var encodingName = map[string]string{MP3: "MP3", Ogg: "Ogg Opus"}

// RecordingProfile is the delivery profile a recording is encoded to
// for an output of the declared format f, mp3 or ogg: an encoding and no
// other rule, so that mastering (audio/master) converts the recording's
// rate and channels and encodes it as it does a delivery, with no gain,
// and the encoder's identity is the one a delivery records (the
// executor records it on the output). MP3 is of
// constant bit rate at the declared bitrate and rate; Ogg is Opus at
// 48000 Hz (the rate an Opus stream is decoded at, whatever the declared
// one), of variable bit rate at libopus's default in ffmpeg (64 kbit/s
// mono, 96 kbit/s stereo), as the emulator's Ogg audio is.
func RecordingProfile(f Format) *deliver.Profile {
	e := deliver.Encoding{SampleRate: f.SampleRate, Channels: f.NumChannels}
	if f.Container == MP3 {
		kbps, _ := strconv.Atoi(strings.TrimSuffix(f.Bitrate, "k"))
		e.Container, e.Codec, e.BitrateMode, e.Bitrate = deliver.ContainerMP3, deliver.CodecMP3, deliver.CBR, kbps*1000
	} else {
		e.Container, e.Codec, e.BitrateMode, e.Bitrate = deliver.ContainerOgg, deliver.CodecOpus, deliver.VBR, 64000+32000*(f.NumChannels-1)
		e.SampleRate = deliver.OpusRate
	}
	return &deliver.Profile{Name: "recorded " + f.Container, Encoding: e}
}

// wavFormat is the sample format a WAV's probe says.
func wavFormat(info audio.Info) (audio.Format, error) {
	f := audio.Format{SampleRate: info.SampleRate, Channels: info.Channels, BitsPerSample: info.BitsPerSample}
	switch info.Codec {
	case "pcm":
		f.Encoding = audio.PCM
	case "float":
		f.Encoding = audio.Float
	case "mulaw":
		f.Encoding = audio.MuLaw
	case "alaw":
		f.Encoding = audio.ALaw
	default:
		return f, fmt.Errorf("a WAV recording of codec %q cannot be converted", info.Codec)
	}
	return f, f.Validate()
}

// lossOf says what converting from to to loses; "" when nothing.
func lossOf(from, to audio.Format) string {
	switch {
	case from.SampleRate != to.SampleRate:
		return fmt.Sprintf("a sample rate change (%d Hz to %d Hz)", from.SampleRate, to.SampleRate)
	case from.Channels != to.Channels:
		return fmt.Sprintf("a channel change (%d to %d)", from.Channels, to.Channels)
	case from.Encoding == to.Encoding && from.BitsPerSample == to.BitsPerSample:
		return ""
	case to.Encoding == audio.PCM && from.Encoding == audio.PCM && to.BitsPerSample >= from.BitsPerSample:
		return ""
	case to.Encoding == audio.PCM && (from.Encoding == audio.MuLaw || from.Encoding == audio.ALaw) && to.BitsPerSample >= 16:
		return ""
	case to.Encoding == audio.MuLaw || to.Encoding == audio.ALaw:
		return fmt.Sprintf("a G.711 (%s) encoding of %d-bit %s", to.Encoding, from.BitsPerSample, from.Encoding)
	}
	return fmt.Sprintf("%d-bit %s to %d-bit %s", from.BitsPerSample, from.Encoding, to.BitsPerSample, to.Encoding)
}

// CheckRecording is RecordingConversion refused when the conversion is
// lossy and convert is false: the error names the measured and the
// declared format.
func CheckRecording(info audio.Info, f Format, convert bool) (Conversion, error) {
	c, err := RecordingConversion(info, f)
	if err != nil {
		return c, err
	}
	if c.Lossy != "" && !convert {
		return c, fmt.Errorf("the recording is %s and the output is declared %s: converting it is lossy (%s); declare recorded: {path: ..., convert: true} to accept that, or give a recording of the declared format",
			c.From, FormatString(f), c.Lossy)
	}
	return c, nil
}

// FormatString renders a declared format for messages, e.g. "wav,
// 24000 Hz, 1 ch, 2-byte linear_pcm".
func FormatString(f Format) string {
	switch f.Container {
	case MP3:
		return fmt.Sprintf("mp3, %d Hz, %d ch, %s", f.SampleRate, f.NumChannels, f.Bitrate)
	case Ogg:
		return fmt.Sprintf("ogg, %d Hz, %d ch", f.SampleRate, f.NumChannels)
	}
	return fmt.Sprintf("%s, %d Hz, %d ch, %d-byte %s", f.Container, f.SampleRate, f.NumChannels, f.SampleWidth, f.Encoding)
}
