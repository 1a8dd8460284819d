package simd

import "testing"

// BenchmarkGELU runs GELU on one frame's ConvNeXt activations at B=1 (2 + 4
// rows of 4096) at every level.
func BenchmarkGELU(b *testing.B) {
	x := make([]float32, 6*4096)
	lcgFill(x, 1, 3)
	out := make([]float32, len(x))
	eachLevel(b, func(b *testing.B) {
		b.SetBytes(int64(4 * len(x)))
		for i := 0; i < b.N; i++ {
			geluErf(out, x)
		}
	})
}
