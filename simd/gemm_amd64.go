//go:build amd64 && gc && !purego

package simd

import "unsafe"

// The Q8 kernels compute g input rows (x8, x4, x2, x1) against np packed
// panels; see gemmQ8Generic for the exact contract. Strides are in bytes:
// ldy between output rows, ldx between groups of 4 inputs, ldsc between
// blocks of scales (-xsum128 sits ldsc/2 bytes after xs); nk = block/32.

//go:noescape
func gemmQ8x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x2AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)
