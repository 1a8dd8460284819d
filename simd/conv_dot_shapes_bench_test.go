package simd

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkConvBF16Shapes reports the bf16 conv (Backend.Conv on 1 and 2
// threads) on the vocoder's residual-unit shapes at a pass of 8
// stream-frames, as a fraction of the bf16 peak of as many threads
// (ConvBF16Peak) measured before each shape: conv1 (k=7, dilation 1 and 9)
// and conv2 (k=1). Each shape is run once untimed first (first-touch page
// faults), so run it with -benchtime of ≥ 100x.
func BenchmarkConvBF16Shapes(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) { convBF16Shapes(b, threads) })
	}
}

// convBF16Shapes is BenchmarkConvBF16Shapes on threads threads.
func convBF16Shapes(b *testing.B, threads int) {
	for _, c := range []struct{ ch, m, k, d int }{
		{768, 256, 7, 1}, {768, 256, 1, 1}, {384, 1280, 7, 1}, {384, 1280, 1, 1},
		{192, 5120, 7, 1}, {192, 5120, 7, 9}, {192, 5120, 1, 1},
		{96, 15360, 7, 1}, {96, 15360, 7, 9}, {96, 15360, 1, 1},
	} {
		b.Run(fmt.Sprintf("ch=%d/m=%d/k=%d/d=%d", c.ch, c.m, c.k, c.d), func(b *testing.B) {
			var peak float64
			for i := 0; i < 3; i++ {
				p, _, err := ConvBF16Peak(threads, 50*time.Millisecond)
				if err != nil {
					b.Skip(err)
				}
				peak = max(peak, p)
			}
			be := NewBackend(threads)
			defer be.Close()
			w := make([]float32, c.ch*c.ch*c.k)
			lcgFill(w, 1, 0.1)
			h, err := be.NewConv(c.ch, c.ch, c.k, c.d, w, make([]float32, c.ch), "bf16")
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float32, ((c.k-1)*c.d+c.m)*c.ch)
			lcgFill(x, 2, 1)
			y := make([]float32, c.m*c.ch)
			if err := be.Conv(y, x, c.m, 1, h); err != nil {
				b.Fatal(err)
			}
			best := 1e9
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := be.Conv(y, x, c.m, 1, h); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0).Seconds())
			}
			g := float64(c.m*c.ch*c.ch*c.k) / best / 1e9
			b.ReportMetric(g, "GMAC/s@min")
			b.ReportMetric(g/peak, "eff@min")
		})
	}
}
