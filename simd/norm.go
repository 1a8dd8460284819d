package simd

import "math"

// RMSNorm normalises each of the m rows of x (width n = len(w)) by its root
// mean square and multiplies by the weight w, writing out (out may be x):
//
//	for each row r: ss := Σ_i float64(x[r][i])²                 (float64)
//	                inv := float32(1 / sqrt(ss/n + float64(eps)))  (float64, rounded once)
//	                out[r][i] = (x[r][i] * inv) * w[i]            (float32, two roundings)
//
// The sum of squares is accumulated in float64 at every level: each square
// of a float32 is exact in float64, so the levels differ only in the order
// of the float64 additions (relative 1e-16) and agree on inv except at a
// float32 rounding boundary; the row scaling is then bit-identical. This is
// slightly more accurate than PyTorch's float32 variance (Qwen3RMSNorm),
// which it matches to about 1e-6 relative. It panics (a caller bug) unless
// len(x) == len(out) == m·len(w).
func RMSNorm(out, x, w []float32, m int, eps float32) {
	n := len(w)
	if m < 0 || len(x) != m*n || len(out) != len(x) {
		panic(shapeBug("RMSNorm", "m = "+itoa(m)+", len(w) = "+itoa(n)+
			", len(x) = "+itoa(len(x))+", len(out) = "+itoa(len(out))+"; want len(x) = len(out) = m·len(w)"))
	}
	if n == 0 {
		return
	}
	lvl := Active()
	for r := range m {
		xr := x[r*n : (r+1)*n : (r+1)*n]
		or := out[r*n : (r+1)*n : (r+1)*n]
		var ss float64
		switch lvl {
		case AVX512VNNI:
			ss = sumSquaresAVX512(&xr[0], n)
		case AVX2:
			ss = sumSquaresAVX2(&xr[0], n)
		default:
			ss = sumSquaresGeneric(xr)
		}
		inv := float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
		switch lvl {
		case AVX512VNNI:
			scaleMulAVX512(&or[0], &xr[0], &w[0], n, inv)
		case AVX2:
			scaleMulAVX2(&or[0], &xr[0], &w[0], n, inv)
		default:
			scaleMulGeneric(or, xr, w, inv)
		}
	}
}

// RMSNormHeads normalises, in place, every head of width headDim in x with
// the weight w (len(w) == headDim): Qwen3's per-head q_norm and k_norm,
// applied before RoPE. It is RMSNorm(x, x, w, len(x)/headDim, eps) and
// panics (a caller bug) unless len(w) == headDim > 0 and headDim divides
// len(x).
func RMSNormHeads(x, w []float32, headDim int, eps float32) {
	if headDim <= 0 || len(w) != headDim || len(x)%headDim != 0 {
		panic(shapeBug("RMSNormHeads", "headDim = "+itoa(headDim)+", len(w) = "+itoa(len(w))+
			", len(x) = "+itoa(len(x))+"; want len(w) = headDim dividing len(x)"))
	}
	RMSNorm(x, x, w, len(x)/headDim, eps)
}
