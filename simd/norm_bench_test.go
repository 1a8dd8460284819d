package simd

import "testing"

func BenchmarkRMSNorm(b *testing.B) {
	benchLevels(b, []int{1024, 2048}, func(b *testing.B, n int) func() {
		rng := vecRNG(1)
		x, w, out := vecRandBuf(rng, n, 0, 1).s(), vecRandBuf(rng, n, 0, 1).s(), make([]float32, n)
		b.SetBytes(int64(12 * n))
		return func() {
			RMSNorm(out, x, w, 1, 1e-6)
		}
	})
}

func BenchmarkRMSNormHeads(b *testing.B) {
	benchLevels(b, []int{16 * 128}, func(b *testing.B, n int) func() {
		rng := vecRNG(1)
		src, w := vecRandBuf(rng, n, 0, 1).s(), vecRandBuf(rng, 128, 0, 1).s()
		x := make([]float32, n)
		b.SetBytes(int64(8 * n))
		return func() {
			copy(x, src) // in place, repeated |w| < 1 would decay x into subnormals
			RMSNormHeads(x, w, 128, 1e-6)
		}
	})
}
