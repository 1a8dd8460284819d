package simd

import (
	"testing"
)

// BenchmarkSnakeBeta runs SnakeBeta on the last vocoder block's shape
// (1920 rows of 96 channels) at every level; MB/s counts input bytes.
func BenchmarkSnakeBeta(b *testing.B) {
	m, n := 1920, 96
	a, inv := make([]float32, n), make([]float32, n)
	lcgFill(a, 1, 1)
	lcgFill(inv, 2, 1)
	x := make([]float32, m*n)
	lcgFill(x, 3, 4)
	out := make([]float32, m*n)
	eachLevel(b, func(b *testing.B) {
		b.SetBytes(int64(4 * m * n))
		for i := 0; i < b.N; i++ {
			SnakeBeta(out, x, m, a, inv)
		}
		b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Msin/s")
	})
}
