package simd

// geluErf writes out[i] = GELU(x[i]) = x[i]·Φ(x[i]) (the exact, erf form of
// GELU) at the active level (out may be x). Φ comes from erfc in float32
// steps, the same operations in the same order at every level (no fused
// multiply-add), so every level gives the generic level's bits for finite
// inputs (geluGeneric has the steps).
func geluErf(out, x []float32) {
	if len(x) == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		geluAVX512(&out[0], &x[0], len(x), &geluConsts)
	default:
		geluGeneric(out, x)
	}
}

// The constants of geluGeneric: erfc(z) ≈ t·exp(−z² − geluK + t·P(t)),
// t = 1/(1 + z/2), with P's coefficients from the highest degree down
// (Numerical Recipes' erfcc: fractional error below 1.2e-7 for every z ≥ 0).
const (
	geluInvSqrt2 = float32(0.70710678118654752)
	geluZMax     = float32(10) // erfc(10) ≈ 2e-45: the clamp changes nothing in float32
	geluK        = float32(1.26551223)
)

var geluP = [9]float32{0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368}

// geluConsts are the constants the assembly reads, in its order:
// 1/√2, the z clamp, ½, 1, P (9), K, −87 and the exponential's log₂e, ln2Hi,
// ln2Lo, c0…c5.
var geluConsts = [24]float32{geluInvSqrt2, geluZMax, 0.5, 1,
	geluP[0], geluP[1], geluP[2], geluP[3], geluP[4], geluP[5], geluP[6], geluP[7], geluP[8],
	geluK, eluLo, log2e, ln2Hi, ln2Lo, expC0, expC1, expC2, expC3, expC4, expC5}
