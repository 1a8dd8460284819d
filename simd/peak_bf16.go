package simd

import "time"

// ConvBF16Peak measures the peak of the instructions the bf16 convolutions
// compute with at the active level, on threads threads for about d, in
// GMAC/s summed over the threads, and names them: "vdpbf16ps" where the
// level computes in bf16 (AVX-512 with AVX512_BF16: 16 zmm chains, 32 MACs
// per instruction), else "fp32 fma (bf16 weights)", FMAPeak halved (the
// other levels widen the bf16 weights to fp32).
func ConvBF16Peak(threads int, d time.Duration) (gmacs float64, how string, err error) {
	if bf16Dot(active) {
		r, err := runPeak(threads, d, bf16DotPeakAVX512, 16*32)
		return r, "vdpbf16ps", err
	}
	p, err := FMAPeak(threads, d)
	return p / 2, "fp32 fma (bf16 weights)", err
}
