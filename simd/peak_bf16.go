package simd

import "time"

// ConvBF16Peak measures the peak of the instructions the bf16 convolutions
// compute with at the active level, on threads threads for about d, in
// GMAC/s summed over the threads, and names them. Today's bf16 kernels
// widen the bf16 weights to fp32 and use fp32 FMA, so it is FMAPeak's
// (halved: one MAC per lane per FMA), "fp32 fma (bf16 weights)".
func ConvBF16Peak(threads int, d time.Duration) (gmacs float64, how string, err error) {
	p, err := FMAPeak(threads, d)
	return p / 2, "fp32 fma (bf16 weights)", err
}
