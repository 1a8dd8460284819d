package simd

import "math"

// snakeRowsGeneric is the reference SnakeBeta: sin in float64, rounded.
func snakeRowsGeneric(out, x []float32, m int, a, inv []float32) {
	n := len(a)
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		for c, v := range xr {
			s := float32(math.Sin(float64(v * a[c])))
			or[c] = v + inv[c]*float32(s*s)
		}
	}
}
