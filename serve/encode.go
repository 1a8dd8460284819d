package serve

import "github.com/omni-tts/omni/audio"

// contentType is the Content-Type of a response format.
func contentType(format string) string { return audio.ContentType(format) }

// newEncoder returns the encoder of a response format decodeSpeech accepted.
func newEncoder(format string) (audio.Encoder, error) { return audio.NewEncoder(format, SampleRate) }
