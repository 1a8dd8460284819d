package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkResConvTile runs one residual-unit tile's first conv (7 taps,
// dilation 3) on one thread, as the fused ResUnit does, in bf16
// (VDPBF16PS) and in int8 (VPDPBUSD), inputs rounded or quantized in the
// timed loop: GMAC/s per precision and channel count.
func BenchmarkResConvTile(b *testing.B) {
	if !bf16Dot(active) {
		b.Skip("needs AVX-512 BF16 to compare against VDPBF16PS")
	}
	for _, ch := range []int{96, 192, 384, 768} {
		const taps, dil = 7, 3
		n := resTileRows(ch, 0)
		H := (taps - 1) * dil
		r := rand.New(rand.NewPCG(1, uint64(ch)))
		w := make([]float32, ch*taps*ch)
		for i := range w {
			w[i] = float32(r.NormFloat64() * 0.05)
		}
		x := make([]float32, (H+n)*ch)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		y := make([]float32, n*ch)
		macs := float64(n * ch * taps * ch)
		b.Run(fmt.Sprintf("bf16/ch%d", ch), func(b *testing.B) {
			p, err := newBF16Panels(w, ch, taps*ch)
			if err != nil {
				b.Fatal(err)
			}
			xb := make([]uint16, len(x))
			var s tileSlot
			s.yp, s.xp = make([]uintptr, n+6), make([]uintptr, n+6)
			for b.Loop() {
				toBF16(active, xb, x)
				yp, xp := s.list(n, y, ch, xb, ch)
				dotRows(active, yp, xp, p, nil, taps, (dil-1)*ch, false)
			}
			b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
		b.Run(fmt.Sprintf("int8/ch%d", ch), func(b *testing.B) {
			c, err := newQ8Conv(w, ch, taps*ch, taps)
			if err != nil {
				b.Fatal(err)
			}
			S := q8RowStride(ch)
			xq := make([]byte, (H+n)*S)
			job := &q8Job{y: y, xq: xq, ts: dil * S}
			job.list(n, 1, ch, n, S)
			job.prepare(active, c)
			for b.Loop() {
				quantizeRowsQ8(active, xq, x, H+n, ch, ch)
				q8ConvRun(active, c, job, 0, len(job.yo), 0, c.panels)
			}
			b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
