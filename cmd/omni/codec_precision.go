package main

import "github.com/omni-tts/omni/simd"

// codecPrecisionAuto is --codec-precision's default: the precision the
// kernel level in use was measured fastest at within 30 dB of fp32
// (simd.DefaultCodecPrecision); fp32 stays one flag away.
const codecPrecisionAuto = "auto"

// resolveCodecPrecision returns p, or for "auto" the level's default.
func resolveCodecPrecision(p string) string {
	if p == codecPrecisionAuto {
		return simd.DefaultCodecPrecision()
	}
	return p
}
