package simd

import "testing"

func BenchmarkSiLUMul(b *testing.B) {
	benchLevels(b, []int{3072, 6144}, func(b *testing.B, n int) func() {
		rng := vecRNG(1)
		g, u, out := vecRandBuf(rng, n, 0, 8).s(), vecRandBuf(rng, n, 0, 1).s(), make([]float32, n)
		b.SetBytes(int64(12 * n))
		return func() {
			SiLUMul(out, g, u)
		}
	})
}
