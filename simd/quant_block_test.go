package simd

import (
	"math"
	"testing"
)

// TestQuantizeBlockQ8Def checks the reciprocal-product quantizer against
// its definition, q = quantRound(x / ws) with a true division, where ws is
// the smallest bf16 not below quantScale(max |x|), on random, wide-exponent,
// half-integer and subnormal blocks.
func TestQuantizeBlockQ8Def(t *testing.T) {
	s := uint64(7)
	next := func() uint64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s }
	x := make([]float32, 32)
	rec := make([]byte, 32*16+32)
	for it := 0; it < 200000; it++ {
		mode := it % 5
		for i := range x {
			switch mode {
			case 0:
				x[i] = float32(int64(next()%2000001)-1000000) / 1e6
			case 1:
				x[i] = math.Float32frombits(uint32(next()) & 0xbfffffff) // wide exponents
			case 2: // half-integer multiples of a scale
				x[i] = float32((float64(int64(next()%255)-127) + 0.5) * 0.0137)
			case 3:
				x[i] = float32(int64(next()%9)-4) * 1e-40
			case 4: // a bf16 scale b exactly (absmax 127·b), the rest ties (k+½)·b
				b := math.Float32frombits(uint32(0x3c00+next()%0x200) << 16)
				if i == 0 {
					x[i] = float32(127 * float64(b) * float64(1-2*int64(next()%2)))
				} else {
					x[i] = float32((float64(int64(next()%254)-127) + 0.5) * float64(b))
				}
			}
		}
		wb := quantizeBlockQ8(rec, x, 3)
		ws := math.Float32frombits(uint32(wb) << 16)
		absmax := 0.0
		for _, v := range x {
			absmax = max(absmax, math.Abs(float64(v)))
		}
		sc := quantScale(absmax)
		// ws is a bf16 ≥ sc, and the bf16 just below it is < sc.
		if below := math.Float32frombits(uint32(wb-1) << 16); ws < sc || (wb > 0 && below >= sc) {
			t.Fatalf("it %d: ws %g (bf16 %#04x) for scale %g", it, ws, wb, sc)
		}
		if ws == 0 {
			continue
		}
		if absmax/float64(ws) > 127.5 {
			t.Fatalf("it %d: absmax %g is %g steps of %g", it, absmax, absmax/float64(ws), ws)
		}
		for k, v := range x {
			q := quantRound(float64(v) / float64(ws))
			if got := int32(rec[(k>>2)*64+12+k&3]) - 128; got != q {
				t.Fatalf("it %d k %d: v %g ws %g: q %d want %d", it, k, v, ws, got, q)
			}
		}
	}
}
