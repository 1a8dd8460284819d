package simd

import "math"

// geluGeneric is GELU at the generic level, in float32 steps none fused
// (the assembly follows them one for one):
//
//	z = min(|x|·(1/√2), 10);  t = 1/(1 + ½·z)
//	a = max(t·P(t) − K − z·z, −87)                      (P by Horner)
//	y = t·exp(a)                                        (erfc(z), exp as expm1Neg's steps)
//	Φ = ½·y for a negative x, else 1 − ½·y;  out = x·Φ
//
// Measured against float64 erf: |out − GELU(x)| ≤ 3e-7·|x| for every finite x.
func geluGeneric(out, x []float32) {
	for i, v := range x {
		z := float32(math.Float32frombits(math.Float32bits(v)&^(1<<31)) * geluInvSqrt2)
		z = min(z, geluZMax)
		t := 1 / (float32(0.5*z) + 1)
		p := geluP[0]
		for _, c := range geluP[1:] {
			p = float32(p*t) + c
		}
		a := float32(t*p) - geluK
		a -= float32(z * z)
		a = max(a, eluLo)
		// exp(a) = 2ⁿ·(q + 1), q = e^r − 1 as in expm1Neg.
		n, q := expReduced(a)
		s := math.Float32frombits(uint32(int32(n)+127) << 23)
		y := float32(t * float32(s*(q+expOne)))
		h := float32(0.5 * y)
		phi := 1 - h
		if math.Float32bits(v)>>31 != 0 {
			phi = h
		}
		out[i] = float32(v * phi)
	}
}
