//go:build !amd64 || !gc || purego

package simd

func sumSquaresAVX512(x *float32, n int) float64            { noAsm(); return 0 }
func sumSquaresAVX2(x *float32, n int) float64              { noAsm(); return 0 }
func scaleMulAVX512(out, x, w *float32, n int, inv float32) { noAsm() }
func scaleMulAVX2(out, x, w *float32, n int, inv float32)   { noAsm() }
