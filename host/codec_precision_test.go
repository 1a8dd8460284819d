package host_test

import (
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
)

// TestCodecPrecisionAuto: CodecSettings.Precision "auto" decodes as the
// active level's default spelled out (simd.DefaultCodecPrecision), and ""
// as fp32, bit for bit.
func TestCodecPrecisionAuto(t *testing.T) {
	codes := make([][core.Codebooks]int32, 6)
	for i := range codes {
		for j := range codes[i] {
			codes[i][j] = int32((i*131 + j*17) % 2048)
		}
	}
	decode := func(prec string) []float32 {
		b := simd.NewBackend(1)
		defer b.Close()
		m, err := host.OpenCodec("synth:tiny", b, prec)
		if err != nil {
			t.Fatalf("precision %q: %v", prec, err)
		}
		defer m.Close()
		s, err := m.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pcm := make([]float32, len(codes)*m.SamplesPerFrame())
		if err := s.Decode(codes, pcm); err != nil {
			t.Fatal(err)
		}
		return pcm
	}
	for short, full := range map[string]string{"auto": simd.DefaultCodecPrecision(), "": "fp32"} {
		if i := sameBits(decode(short), decode(full)); i >= 0 {
			t.Errorf("precision %q differs from %q at sample %d", short, full, i)
		}
	}
}
