package simd

// Add adds x to dst element-wise:
//
//	for i := range dst { dst[i] += x[i] }
//
// Every level rounds each sum once, so all levels agree exactly.
// It panics (a caller bug) when the lengths differ.
func Add(dst, x []float32) {
	if len(dst) != len(x) {
		panic(lenBug("Add", "dst", len(dst), "x", len(x)))
	}
	if len(x) == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		addAVX512(&dst[0], &x[0], len(x))
	case AVX2:
		addAVX2(&dst[0], &x[0], len(x))
	default:
		addGeneric(dst, x)
	}
}

// Scale multiplies x by alpha in place:
//
//	for i := range x { x[i] *= alpha }
//
// Every level rounds each product once, so all levels agree exactly.
func Scale(alpha float32, x []float32) {
	if len(x) == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		scaleAVX512(&x[0], len(x), alpha)
	case AVX2:
		scaleAVX2(&x[0], len(x), alpha)
	default:
		scaleGeneric(alpha, x)
	}
}

// Axpy adds alpha·x to y:
//
//	for i := range y { y[i] += alpha * x[i] }
//
// The assembly levels use a fused multiply-add (one rounding), the generic
// level a product and a sum (two roundings). It panics (a caller bug) when
// the lengths differ.
func Axpy(alpha float32, x, y []float32) {
	if len(x) != len(y) {
		panic(lenBug("Axpy", "x", len(x), "y", len(y)))
	}
	if len(x) == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		axpyAVX512(&y[0], &x[0], len(x), alpha)
	case AVX2:
		axpyAVX2(&y[0], &x[0], len(x), alpha)
	default:
		axpyGeneric(alpha, x, y)
	}
}

// Dot returns the inner product of x and y in float32:
//
//	var s float32
//	for i := range x { s += x[i] * y[i] }
//
// The accumulation order differs by level (so results differ by rounding):
// generic keeps 4 partial sums (element i goes to sum i mod 4), AVX2 32
// (4 registers × 8 lanes, fused multiply-add), AVX-512 64 (4 registers × 16
// lanes, fused multiply-add); the partial sums are then added pairwise. It
// panics (a caller bug) when the lengths differ.
func Dot(x, y []float32) float32 {
	if len(x) != len(y) {
		panic(lenBug("Dot", "x", len(x), "y", len(y)))
	}
	if len(x) == 0 {
		return 0
	}
	switch Active() {
	case AVX512VNNI:
		return dotAVX512(&x[0], &y[0], len(x))
	case AVX2:
		return dotAVX2(&x[0], &y[0], len(x))
	}
	return dotGeneric(x, y)
}
