package sampler

import "math"

// maxfCmp is max(a, b) for float32 with the builtin's exact semantics (a
// NaN operand gives that NaN; max(−0, +0) = +0) written with comparisons
// only. The builtin compiles to a call of runtime.fmax32 on GOARCH=wasm,
// which made the top-k scan 18× slower in the WASI guest than natively;
// maxf picks this form there and the builtin elsewhere.
func maxfCmp(a, b float32) float32 {
	if a > b {
		return a
	}
	if b > a {
		return b
	}
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	// a == b: only the signs of zeros can differ; +0 wins.
	return math.Float32frombits(math.Float32bits(a) & math.Float32bits(b))
}
