//go:build amd64 && gc && !purego

package simd

import "unsafe"

// gemmF32x6AVX2 computes 6 input rows (byte stride ldx) against np packed
// panels of k inputs, 16 outputs per panel per row into y (byte stride
// ldy); see convGemmGeneric.
//
//go:noescape
func gemmF32x6AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)
