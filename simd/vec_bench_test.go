package simd

import (
	"strconv"
	"testing"
)

// benchLevels runs f as a sub-benchmark per level and size, name
// "<level>/n=<n>", with the level forced.
func benchLevels(b *testing.B, sizes []int, f func(b *testing.B, n int)) {
	for _, l := range vecLevels(b) {
		for _, n := range sizes {
			b.Run(l.String()+"/n="+strconv.Itoa(n), func(b *testing.B) {
				defer Use(l)()
				f(b, n)
			})
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	benchLevels(b, []int{1024, 2048}, func(b *testing.B, n int) {
		x, y := make([]float32, n), make([]float32, n)
		b.SetBytes(int64(12 * n))
		for b.Loop() {
			Add(y, x)
		}
	})
}

func BenchmarkDot(b *testing.B) {
	benchLevels(b, []int{128, 1024}, func(b *testing.B, n int) {
		rng := vecRNG(1)
		x, y := vecRandBuf(rng, n, 0, 1).s(), vecRandBuf(rng, n, 0, 1).s()
		b.SetBytes(int64(8 * n))
		var s float32
		for b.Loop() {
			s += Dot(x, y)
		}
		_ = s
	})
}
