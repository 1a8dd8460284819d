package simd

// sumSquaresGeneric returns Σ float64(x[i])² with four float64 partial
// sums (element i goes to sum i mod 4), added as (s0+s1)+(s2+s3).
func sumSquaresGeneric(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		a := float64(x[i])
		s0 += a * a
	}
	return (s0 + s1) + (s2 + s3)
}

// scaleMulGeneric is out[i] = (x[i] * inv) * w[i], each product rounded.
func scaleMulGeneric(out, x, w []float32, inv float32) {
	x = x[:len(out)]
	w = w[:len(out)]
	for i := range out {
		out[i] = float32(x[i]*inv) * w[i]
	}
}
