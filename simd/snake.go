package simd

// snakeRows applies SnakeBeta to m rows of len(a) channels:
//
//	for r, c: out[r][c] = x[r][c] + inv[c]·sin²(x[r][c]·a[c])
//
// (float32 products; out may be x).
func snakeRows(out, x []float32, m int, a, inv []float32) {
	snakeRowsGeneric(out, x, m, a, inv)
}
