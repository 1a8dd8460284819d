//go:build amd64 && gc && !purego

package simd

import "unsafe"

// The Q4 kernels compute g input rows (x8, x4, x2, x1) against np packed
// panels; see gemmQ4Generic for the exact contract. Strides are in bytes:
// ldy between output rows, ldx between groups of 4 inputs, ldsc between
// blocks of scales (-xsum128 sits ldsc/2 bytes after xs). tab is the
// codebook as the level needs it: 16 unsigned levels+128 (AVX-512 VNNI) or
// 16 signed levels (AVX2).

//go:noescape
func gemmQ4x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

// gemmQ4x1P4AVX512VNNI is the x1 kernel over np quads of panels (four
// weight streams in flight); gemmQ4x2P4AVX512VNNI the x2 kernel. The NP
// variants issue no software prefetch (quadPrefetch chooses).

//go:noescape
func gemmQ4x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

//go:noescape
func gemmQ4x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)

// gemmQ4x4P2AVX512VNNI is the x4 kernel over np pairs of panels (two
// weight streams in flight).
//
//go:noescape
func gemmQ4x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer)
