package speaker_test

import (
	"math"
	"testing"

	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
)

func clip(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.3*math.Sin(float64(i)*0.04) + 0.1*math.Sin(float64(i)*0.3))
	}
	return x
}

// BenchmarkEmbed10s embeds a 10 s clip with the real geometry on one thread.
func BenchmarkEmbed10s(b *testing.B) {
	be := simd.NewBackend(1)
	defer be.Close()
	enc, err := speaker.NewSynthetic(speaker.DefaultConfig(1024), 1, be, "fp32")
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	x, dst := clip(10*speaker.SampleRate), make([]float32, 1024)
	for b.Loop() {
		if err := enc.Embed(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMel10s computes the log-mel of a 10 s clip.
func BenchmarkMel10s(b *testing.B) {
	m := speaker.NewMel()
	x := clip(10 * speaker.SampleRate)
	buf, _, _ := m.Compute(nil, x)
	for b.Loop() {
		buf, _, _ = m.Compute(buf, x)
	}
}
