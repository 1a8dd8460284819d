package serve

import (
	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/audio/oggopus"
)

// contentType is the Content-Type of a response format.
func contentType(format string) string {
	if format == FormatOpus {
		return oggopus.ContentType
	}
	return audio.ContentType(format)
}

// newEncoder returns the encoder of a response format decodeSpeech accepted
// (opus: Ogg Opus through package oggopus, which audio does not link).
func newEncoder(format string) (audio.Encoder, error) {
	if format == FormatOpus {
		return oggopus.NewEncoder(SampleRate)
	}
	return audio.NewEncoder(format, SampleRate)
}
