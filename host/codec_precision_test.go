package host_test

import (
	"testing"

	"github.com/omni-tts/omni/core"
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
	for short, full := range map[string]string{"auto": simd.DefaultCodecPrecision(), "": "fp32"} {
		if i := sameBits(decodeAloneIn(t, codes, short), decodeAloneIn(t, codes, full)); i >= 0 {
			t.Errorf("precision %q differs from %q at sample %d", short, full, i)
		}
	}
}
