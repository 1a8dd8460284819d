package simd

import "math"

// Softmax replaces x by its softmax, in float32 with max-subtraction:
//
//	m := max(x)
//	for i := range x { x[i] = exp(x[i] - m); s += x[i] }
//	for i := range x { x[i] *= 1 / s }
//
// exp is the Cephes polynomial of vec_exp.go (≤ 1.2e-7 relative to
// math.Exp). −Inf entries become exactly 0. As in PyTorch, a row whose
// maximum is +Inf or that is all −Inf becomes all NaN, and a NaN anywhere
// makes every element NaN. The sum's order differs by level: generic adds
// in index order; AVX2 keeps 8 lane sums (element i in lane i mod 8) over
// the first n−n mod 8 elements, adds them pairwise, then the rest in order;
// AVX-512 keeps 16 lane sums (the tail masked) added pairwise.
func Softmax(x []float32) { softmaxAt(Active(), x) }

// softmaxAt is Softmax at level lvl (Attention runs generic code for head
// widths the assembly does not cover).
func softmaxAt(lvl Level, x []float32) {
	n := len(x)
	if n == 0 {
		return
	}
	var s float32
	switch lvl {
	case AVX512VNNI:
		m := maxAVX512(&x[0], n)
		s = expSubAVX512(&x[0], n, m)
		scaleAVX512(&x[0], n, 1/s)
	case AVX2:
		m := maxAVX2(&x[0], n)
		k := n &^ 7
		if k > 0 {
			s = expSubAVX2(&x[0], k, m)
		}
		s += expSubGeneric(x[k:], m)
		scaleAVX2(&x[0], n, 1/s)
	default:
		m := maxGeneric(x)
		s = expSubGeneric(x, m)
		scaleGeneric(1/s, x)
	}
}

// maxGeneric returns the largest element, ignoring NaNs (−Inf when x is
// all NaN); Softmax's NaN rule holds either way since exp(NaN − m) is NaN.
func maxGeneric(x []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	return m
}

// expSubGeneric sets x[i] = exp(x[i] − m) and returns their sum in index
// order.
func expSubGeneric(x []float32, m float32) float32 {
	var s float32
	for i, v := range x {
		e := expf32(v - m)
		x[i] = e
		s += e
	}
	return s
}
