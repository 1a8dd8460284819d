package simd

import "math"

// eluGeneric is ELU at the generic level: the negative branch evaluated
// for every value and selected by the sign bit.
func eluGeneric(out, x []float32) {
	for i, v := range x {
		e := math.Float32bits(expm1Neg(v))
		b := math.Float32bits(v)
		m := uint32(int32(b) >> 31) // all ones when the sign bit is set
		out[i] = math.Float32frombits(b&^m | e&m)
	}
}

// expm1Neg returns e^x − 1 for x = max(min(x, 0), −87) in float32 steps
// (no step fused):
//
//	n = roundToEven(x·log₂e); r = x − n·ln2Hi − n·ln2Lo      (vec_exp.go)
//	p = ((((c0·r + c1)·r + c2)·r + c3)·r + c4)·r + c5
//	q = p·r² + r                                             (e^r − 1)
//	e^x − 1 = 2ⁿ·q + (2ⁿ − 1)
//
// For |x| < ln2/2 n is 0 and the result is q itself: no cancellation.
func expm1Neg(x float32) float32 {
	x = min(x, 0)
	x = max(x, eluLo)
	n, q := expReduced(x)
	s := math.Float32frombits(uint32(int32(n)+127) << 23)
	return float32(s*q) + (s - expOne)
}
