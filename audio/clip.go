package audio

import (
	"fmt"
	"math"
)

// ReferenceRate is the rate reference clips are brought to (the speaker
// and codec encoders of Qwen3-TTS take 24 kHz).
const ReferenceRate = 24000

// DefaultMaxSeconds is the longest reference clip LoadReference accepts
// when the caller gives no bound.
const DefaultMaxSeconds = 30

// Reference is a reference clip ready for the encoders: mono, 24 kHz.
type Reference struct {
	Samples []float32 // mono at ReferenceRate
	Source  Decoded   // what the file held (Samples nil: not kept)
}

// LoadReference decodes a WAV held in data (see Decode) and prepares it
// (see Prepare); audio/compressed.LoadReference also takes FLAC and MP3.
func LoadReference(name string, data []byte, maxSeconds float64) (*Reference, error) {
	d, err := Decode(name, data)
	if err != nil {
		return nil, err
	}
	return Prepare(name, d, maxSeconds)
}

// Prepare refuses a decoded clip longer than maxSeconds (≤ 0:
// DefaultMaxSeconds) or empty, then resamples its mono samples to 24 kHz.
// name names the file in errors.
func Prepare(name string, d *Decoded, maxSeconds float64) (*Reference, error) {
	if maxSeconds <= 0 || math.IsNaN(maxSeconds) {
		maxSeconds = DefaultMaxSeconds
	}
	secs := float64(len(d.Samples)) / float64(d.Rate)
	if secs > maxSeconds {
		return nil, fmt.Errorf("%w: %s: %.2f s of audio, the bound is %g s (cut the clip or raise the bound)", ErrFormat, name, secs, maxSeconds)
	}
	if len(d.Samples) == 0 {
		return nil, formatErrorf(name, "no samples")
	}
	r, err := NewResampler(d.Rate, ReferenceRate)
	if err != nil {
		return nil, fmt.Errorf("audio: %s: %w", name, err)
	}
	out := r.Resample(nil, d.Samples)
	src := *d
	src.Samples = nil
	return &Reference{Samples: out, Source: src}, nil
}
