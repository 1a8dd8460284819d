package simd

import "math"

// geluErfGeneric is the reference exact GELU, computed in float64 and
// rounded once.
func geluErfGeneric(out, x []float32) {
	for i, v := range x {
		f := float64(v)
		out[i] = float32(0.5 * f * (1 + math.Erf(f/math.Sqrt2)))
	}
}
