package simd

import "math"

// Hadamard applies in place the orthonormal Sylvester–Hadamard transform of
// width n (a power of two; H = Hᵀ = H⁻¹, entries ±1/√n) to every n-wide
// block of x. It is the fast (butterfly) form of
//
//	for b := 0; b < len(x); b += n {
//		v := x[b : b+n]
//		for h := 1; h < n; h *= 2 {
//			for i := 0; i < n; i += 2 * h {
//				for j := i; j < i+h; j++ {
//					v[j], v[j+h] = v[j]+v[j+h], v[j]-v[j+h]
//				}
//			}
//		}
//		for i := range v { v[i] *= float32(1 / math.Sqrt(float64(n))) }
//	}
//
// with exactly these float32 additions, subtractions and final scaling, so
// every level gives the same bits. Width 64 runs in assembly; other widths
// in Go. n = 1 leaves x as it is. It panics (a caller bug) unless n is a
// power of two and divides len(x).
func Hadamard(x []float32, n int) {
	if n < 1 || n&(n-1) != 0 || len(x)%n != 0 {
		panic(shapeBug("Hadamard", "len(x) = "+itoa(len(x))+", n = "+itoa(n)))
	}
	if n == 1 || len(x) == 0 {
		return
	}
	scale := float32(1 / math.Sqrt(float64(n)))
	if n == 64 {
		switch Active() {
		case AVX512VNNI:
			hadamard64AVX512(&x[0], len(x)/64, scale)
			return
		case AVX2:
			hadamard64AVX2(&x[0], len(x)/64, scale)
			return
		}
	}
	hadamardGeneric(x, n, scale)
}
