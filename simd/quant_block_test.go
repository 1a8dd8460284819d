package simd

import (
	"math"
	"testing"
)

// TestQuantizeBlockQ8Def checks the reciprocal-product quantizer against
// its definition, q = quantRound(x / quantScale(max |x|)) with a true
// division, on random, wide-exponent, half-integer and subnormal blocks.
func TestQuantizeBlockQ8Def(t *testing.T) {
	s := uint64(7)
	next := func() uint64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s }
	x := make([]float32, 32)
	rec := make([]byte, 32*16+64)
	for it := 0; it < 200000; it++ {
		mode := it % 4
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
			}
		}
		ws := quantizeBlockQ8(rec, x, 3)
		absmax := 0.0
		for _, v := range x {
			absmax = max(absmax, math.Abs(float64(v)))
		}
		want := quantScale(absmax)
		if ws != want {
			t.Fatalf("it %d: ws %g want %g", it, ws, want)
		}
		if ws == 0 {
			continue
		}
		for k, v := range x {
			q := quantRound(float64(v) / float64(ws))
			if got := int32(rec[(k>>2)*64+12+k&3]) - 128; got != q {
				t.Fatalf("it %d k %d: v %g ws %g: q %d want %d", it, k, v, ws, got, q)
			}
		}
	}
}
