//go:build amd64 && gc && !purego

package simd

//go:noescape
func sumSquaresAVX512(x *float32, n int) float64

//go:noescape
func sumSquaresAVX2(x *float32, n int) float64

//go:noescape
func scaleMulAVX512(out, x, w *float32, n int, inv float32)

//go:noescape
func scaleMulAVX2(out, x, w *float32, n int, inv float32)
