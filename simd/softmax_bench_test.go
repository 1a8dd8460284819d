package simd

import "testing"

func BenchmarkSoftmax(b *testing.B) {
	benchLevels(b, []int{256, 3072}, func(b *testing.B, n int) func() {
		rng := vecRNG(1)
		src := vecRandBuf(rng, n, 0, 8).s()
		x := make([]float32, n)
		b.SetBytes(int64(4 * n))
		return func() {
			copy(x, src)
			Softmax(x)
		}
	})
}
