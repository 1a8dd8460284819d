package sampler

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxfCmpIsTheBuiltin checks maxfCmp bit for bit against the builtin
// max on special values (NaNs with payloads, ±0, ±inf, subnormals) and
// random pairs.
func TestMaxfCmpIsTheBuiltin(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
		math.Float32frombits(1), math.Float32frombits(0x80000001), math.MaxFloat32, -math.MaxFloat32, 3.5}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		vals = append(vals, math.Float32frombits(r.Uint32()))
	}
	for _, a := range vals[:40] {
		for _, b := range vals {
			for _, p := range [][2]float32{{a, b}, {b, a}} {
				got, want := maxfCmp(p[0], p[1]), max(p[0], p[1])
				gn, wn := got != got, want != want
				if gn != wn || (!gn && math.Float32bits(got) != math.Float32bits(want)) {
					t.Fatalf("maxfCmp(%v [%#x], %v [%#x]) = %v [%#x], builtin max %v [%#x]", p[0], math.Float32bits(p[0]), p[1], math.Float32bits(p[1]), got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
	}
}
