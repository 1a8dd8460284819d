//go:build amd64 && gc && !purego

package simd

import "unsafe"

// The fp32 kernels compute g input rows (x8 … x1) against np packed panels
// of k inputs each; ldy and ldx are byte strides between rows of y and x.

//go:noescape
func gemmF32x8AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x4AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x2AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x1AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x4AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x2AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)

//go:noescape
func gemmF32x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int)
