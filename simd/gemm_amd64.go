//go:build amd64 && gc && !purego

package simd

import "unsafe"

// The Q8 kernels compute g input rows (x8, x4, x2, x1) against np packed
// panels; see gemmQ8Generic for the exact contract. Strides are in bytes:
// ldy between output rows, ldx between groups of 4 inputs, ldsc between
// blocks of scales (-xsum128 sits ldsc/2 bytes after xs); nk = block/32.

//go:noescape
func gemmQ8x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np, pf int)

//go:noescape
func gemmQ8x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x4P2AVX512VNNI is the x4 kernel over np pairs of panels (2·np
// panels), each activation broadcast feeding both panels of a pair.
//
//go:noescape
func gemmQ8x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x1P2AVX512VNNI is the x1 kernel over np pairs of panels, the two
// panels of a pair read side by side.
//
//go:noescape
func gemmQ8x1P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x1P4AVX512VNNI is the x1 kernel over np quads of panels, the four
// panels of a quad read side by side.
//
//go:noescape
func gemmQ8x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x2P4AVX512VNNI is the x2 kernel over np quads of panels.
//
//go:noescape
func gemmQ8x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x1P4NPAVX512VNNI is gemmQ8x1P4AVX512VNNI without software prefetch.
//
//go:noescape
func gemmQ8x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x2P4NPAVX512VNNI is gemmQ8x2P4AVX512VNNI without software prefetch.
//
//go:noescape
func gemmQ8x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

// gemmQ8x2P2AVX512VNNI is the x2 kernel over np pairs of panels, each
// activation broadcast feeding both panels of a pair.
//
//go:noescape
func gemmQ8x2P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x2AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)

//go:noescape
func gemmQ8x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int)
