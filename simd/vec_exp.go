package simd

import "math"

// The exponential used by Softmax and SiLUMul at every level (Cephes'
// expf, the same steps in Go and in the assembly):
//
//	x  = min(max(x, -104), 88.8)        (NaN stays NaN; below -104 the result rounds to 0, above 88.72 it is +Inf)
//	n  = roundToEven(x · log₂e)          (float32 product)
//	r  = x − n·ln2Hi − n·ln2Lo           (Cody–Waite: ln2Hi has 9 significant bits, so n·ln2Hi is exact)
//	p  = ((((c0·r + c1)·r + c2)·r + c3)·r + c4)·r + c5
//	y  = p·r² + r + 1
//	eˣ = y · 2ⁿ                          (one rounding, so subnormal results are right too)
//
// Its error against math.Exp is below 1.2e-7 relative (measured 8.2e-8,
// under one ulp) for
// normal results and 1 ulp of the smallest subnormal below them; the test
// sweeps the whole range. The assembly levels evaluate r and the polynomial
// with fused multiply-adds, so they can differ from the generic level by an
// ulp.
const (
	expLo  = -104
	expHi  = 88.8
	log2e  = float32(1.44269504088896341)
	ln2Hi  = float32(0.693359375)
	ln2Lo  = float32(-2.12194440e-4)
	expC0  = float32(1.9875691500e-4)
	expC1  = float32(1.3981999507e-3)
	expC2  = float32(8.3334519073e-3)
	expC3  = float32(4.1665795894e-2)
	expC4  = float32(1.6666665459e-1)
	expC5  = float32(5.0000001201e-1)
	expOne = float32(1)
)

// expf32 is the generic level's exponential (see the constants above).
func expf32(x float32) float32 {
	if x < expLo {
		x = expLo
	}
	if x > expHi {
		x = expHi
	}
	n, q := expReduced(x)
	y := q + expOne
	return scale2(y, n)
}

// expReduced returns n = roundToEven(x·log₂e) and q = e^r − 1 for the
// reduced r = x − n·ln2Hi − n·ln2Lo (Cody–Waite), q = p·r² + r with p the
// degree-5 polynomial above, each step rounded to float32 (no step fused):
// the shared core of expf32, expm1Neg and GELU's generic level, so e^x =
// 2ⁿ·(q + 1).
func expReduced(x float32) (n, q float32) {
	n = float32(math.RoundToEven(float64(float32(x * log2e))))
	r := x - float32(n*ln2Hi)
	r -= float32(n * ln2Lo)
	p := float32(expC0*r) + expC1
	p = float32(p*r) + expC2
	p = float32(p*r) + expC3
	p = float32(p*r) + expC4
	p = float32(p*r) + expC5
	return n, float32(p*float32(r*r)) + r
}

// scale2 returns y·2ⁿ for an integral n in [-150, 128] with a single
// rounding: two exact power-of-two factors, 2^⌊n/2⌋ and 2^(n−⌊n/2⌋), each a
// normal float32, so only the second product rounds.
func scale2(y, n float32) float32 {
	ni := int32(n)
	n1 := ni >> 1
	n2 := ni - n1
	y *= math.Float32frombits(uint32(n1+127) << 23)
	return y * math.Float32frombits(uint32(n2+127)<<23)
}
