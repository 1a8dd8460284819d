package simd

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkConvGemm measures the conv GEMM on the vocoder's residual-unit
// shapes (k=7, dilation 1) at every level, in GMAC/s.
func BenchmarkConvGemm(b *testing.B) {
	eachLevel(b, func(b *testing.B) {
		for _, c := range []struct{ ch, m int }{{768, 32}, {384, 160}, {192, 640}, {96, 1920}} {
			b.Run(fmt.Sprintf("ch=%d/m=%d", c.ch, c.m), func(b *testing.B) {
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
	})
}

// BenchmarkConvGemmEfficiency reports the conv GEMM's GMAC/s on the
// residual-unit shapes as a fraction of the fp32 FMA peak of one thread,
// measured (best of three 50 ms runs) right before each shape.
func BenchmarkConvGemmEfficiency(b *testing.B) {
	for _, c := range []struct{ ch, m int }{{768, 32}, {768, 128}, {384, 32}, {384, 160}, {192, 640}, {96, 1920}} {
		b.Run(fmt.Sprintf("ch=%d/m=%d", c.ch, c.m), func(b *testing.B) {
			var peak float64
			for i := 0; i < 3; i++ {
				p, err := FMAPeak(1, 50*time.Millisecond)
				if err != nil {
					b.Skip(err)
				}
				peak = max(peak, p/2)
			}
			k := 7 * c.ch
			w := make([]float32, c.ch*k)
			lcgFill(w, 1, 0.1)
			wm, _ := NewF32Matrix(w, c.ch, k)
			x := make([]float32, (c.m+6)*c.ch)
			lcgFill(x, 2, 1)
			y := make([]float32, c.m*c.ch)
			best := 1e9
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				ConvGemm(y, c.ch, x, c.ch, c.m, wm)
				best = min(best, time.Since(t0).Seconds())
			}
			g := float64(c.m*c.ch*k) / best / 1e9
			b.ReportMetric(g, "GMAC/s@min")
			b.ReportMetric(g/peak, "eff@min")
			b.ReportMetric(peak, "peak-GMAC/s")
		})
	}
}
