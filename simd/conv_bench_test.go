package simd

import (
	"fmt"
	"testing"
)

// BenchmarkConvGemm measures the conv GEMM on the vocoder's residual-unit
// shapes (k=7, dilation 1) at every level, in GMAC/s.
func BenchmarkConvGemm(b *testing.B) {
	for _, c := range []struct{ ch, m int }{{768, 32}, {384, 160}, {192, 640}, {96, 1920}} {
		for _, l := range Levels() {
			if !Supported(l) || l == Generic && testing.Short() {
				continue
			}
			b.Run(fmt.Sprintf("%s/ch=%d/m=%d", l, c.ch, c.m), func(b *testing.B) {
				defer Use(l)()
				k := 7 * c.ch
				w := make([]float32, c.ch*k)
				lcgFill(w, 1, 0.1)
				wm, err := NewF32Matrix(w, c.ch, k)
				if err != nil {
					b.Fatal(err)
				}
				x := make([]float32, (c.m+6)*c.ch)
				lcgFill(x, 2, 1)
				y := make([]float32, c.m*c.ch)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ConvGemm(y, c.ch, x, c.ch, c.m, wm)
				}
				b.ReportMetric(float64(c.m*c.ch*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}
