package simd

// hadamardGeneric is Hadamard in Go: the butterflies of every n-wide block,
// then the scaling by scale (1/√n).
func hadamardGeneric(x []float32, n int, scale float32) {
	for b := 0; b+n <= len(x); b += n {
		v := x[b : b+n : b+n]
		for h := 1; h < n; h *= 2 {
			for i := 0; i < n; i += 2 * h {
				a := v[i : i+h : i+h]
				c := v[i+h : i+2*h : i+2*h]
				c = c[:len(a)]
				for j, x := range a {
					y := c[j]
					a[j], c[j] = x+y, x-y
				}
			}
		}
		for i := range v {
			v[i] *= scale
		}
	}
}
