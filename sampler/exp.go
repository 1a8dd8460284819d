package sampler

import "math"

// exp32 is exp(x) for a float32 x, computed in float64 and rounded once to
// float32, so it is the correctly rounded result except within about 2⁻⁵⁰
// of a rounding boundary. It uses only float64 adds, multiplies and bit
// operations, so it gives the same bits on every platform (no assembly, no
// fused multiply-add): native and WASI runs agree.
//
// exp32(-inf) = 0, exp32(NaN) = NaN, exp32(+inf) = +inf.
func exp32(x float32) float32 {
	switch {
	case x != x:
		return x
	case x < -110:
		return 0
	case x > 89:
		return float32(math.Inf(1))
	}
	const (
		log2e = 1.4426950408889634
		ln2hi = 6.93147180369123816490e-01 // high bits of ln 2 (fdlibm split)
		ln2lo = 1.90821492927058770002e-10 // ln 2 − ln2hi
	)
	xd := float64(x)
	kf := xd * log2e
	// Round to nearest without math.Round (kept branch-light and exact).
	var k int
	if kf >= 0 {
		k = int(kf + 0.5)
	} else {
		k = int(kf - 0.5)
	}
	fk := float64(k)
	hi := xd - fk*ln2hi // exact: k has ≤ 8 bits, ln2hi has 32 trailing zero bits
	r := hi - fk*ln2lo
	// exp(r) for |r| ≤ 0.35 by its Taylor series to degree 13 (error < 1e-17).
	p := 1.0 / 6227020800
	p = p*r + 1.0/479001600
	p = p*r + 1.0/39916800
	p = p*r + 1.0/3628800
	p = p*r + 1.0/362880
	p = p*r + 1.0/40320
	p = p*r + 1.0/5040
	p = p*r + 1.0/720
	p = p*r + 1.0/120
	p = p*r + 1.0/24
	p = p*r + 1.0/6
	p = p*r + 0.5
	p = p*r + 1
	p = p*r + 1
	// 2^k is a normal float64 for k in [-160, 130].
	return float32(p * math.Float64frombits(uint64(k+1023)<<52))
}
