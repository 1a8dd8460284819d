package simd

import "math"

// sin32 polynomial: sin(r) ≈ r + r³·(c3 + r²·(c5 + r²·(c7 + r²·c9))) on
// [−π/2, π/2], fitted (Lawson-weighted least squares) for minimax absolute
// error 4.6e-9.
const (
	sinC3 = -0.16666657
	sinC5 = 0.008333017
	sinC7 = -0.00019806615
	sinC9 = 2.6000523e-06
)

// sin32 returns sin(z) for float32 z: z reduced by π in float64 (exact to
// float32 rounding for any |z| < 2³⁰), then the polynomial in float32.
func sin32(z float32) float32 {
	k := math.RoundToEven(float64(z) * (1 / math.Pi))
	r := float32(float64(z) - k*math.Pi)
	r2 := r * r
	p := float32(float32(sinC9*r2) + sinC7)
	p = float32(float32(p*r2) + sinC5)
	p = float32(float32(p*r2) + sinC3)
	s := r + float32(float32(r*r2)*p)
	if int64(k)&1 != 0 {
		s = -s
	}
	return s
}

// snakeRowsGeneric is SnakeBeta in plain Go.
func snakeRowsGeneric(out, x []float32, m int, a, inv []float32) {
	n := len(a)
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		for c, v := range xr {
			s := sin32(float32(v * a[c]))
			or[c] = v + float32(inv[c]*float32(s*s))
		}
	}
}
