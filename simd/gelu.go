package simd

// geluErf writes out[i] = x[i]·(1 + erf(x[i]/√2))/2 (out may be x).
func geluErf(out, x []float32) {
	geluErfGeneric(out, x)
}
