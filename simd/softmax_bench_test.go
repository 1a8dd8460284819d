package simd

import "testing"

func BenchmarkSoftmax(b *testing.B) {
	benchLevels(b, []int{256, 3072}, func(b *testing.B, n int) {
		rng := vecRNG(1)
		src := vecRandBuf(rng, n, 0, 8).s()
		x := make([]float32, n)
		b.SetBytes(int64(4 * n))
		for b.Loop() {
			copy(x, src)
			Softmax(x)
		}
	})
}
