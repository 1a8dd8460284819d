package simd

import "unsafe"

// SnakeBeta applies SnakeBeta to m rows of len(a) channels:
//
//	for r, c: out[r][c] = x[r][c] + inv[c]·sin²(x[r][c]·a[c])
//
// where the caller precomputed a = exp(α) and inv = 1/(exp(β)+1e-9) in
// float32; out may be x. sin² is sin32's: the argument z = float32(x·a) is
// reduced by π (|z| ≤ 65536 in the assembly, float32 Cody–Waite with FMA;
// beyond that, and at the generic level, in float64) and sin(r), |r| ≤ π/2,
// is an odd degree-9 polynomial fitted for minimax absolute error (4.6e-9
// in exact arithmetic). Measured against math.Sin (sin32_test.go): |sin32(z)
// − sin(z)| ≤ 1.2e-7 for |z| ≤ 65536 at every level. It panics when
// len(x), len(out) ≠ m·len(a) or len(inv) ≠ len(a).
func SnakeBeta(out, x []float32, m int, a, inv []float32) {
	n := len(a)
	if m < 0 || len(inv) != n || len(x) != m*n || len(out) != m*n {
		panic("simd: SnakeBeta: lengths")
	}
	snakeRows(active, out, x, m, a, inv)
}

// snakeMaxArg is the largest |x·a| the assembly reduces in float32; a row
// with a larger argument is redone by the generic level.
const snakeMaxArg = 65536

// snakeRows is SnakeBeta at level l, row by row.
func snakeRows(l Level, out, x []float32, m int, a, inv []float32) {
	n := len(a)
	nv := n &^ 7
	if !haveAsm || l == Generic || nv == 0 {
		snakeRowsGeneric(out, x, m, a, inv)
		return
	}
	ap, ip := unsafe.Pointer(&a[0]), unsafe.Pointer(&inv[0])
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		var big bool
		if l == AVX512VNNI {
			big = snakeAVX512(unsafe.Pointer(&or[0]), unsafe.Pointer(&xr[0]), ap, ip, nv)
		} else {
			big = snakeAVX2(unsafe.Pointer(&or[0]), unsafe.Pointer(&xr[0]), ap, ip, nv)
		}
		if big {
			snakeRowsGeneric(or, xr, 1, a, inv)
			continue
		}
		if nv < n {
			snakeRowsGeneric(or[nv:], xr[nv:], 1, a[nv:], inv[nv:])
		}
	}
}
