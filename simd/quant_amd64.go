//go:build amd64 && gc && !purego

package simd

import "unsafe"

// quantizeQ8AVX512 quantizes nb full blocks of one activation row (chunks =
// block/16 vectors each) exactly as quantizeBlock does, writing 4 values
// per ld bytes from dst, and xs / -xsum128 at sc and sc+sumoff (sc advancing
// ldsc bytes per block). It returns the number of blocks done: it stops
// before a block whose scale would be subnormal, which the Go path handles.
//
//go:noescape
func quantizeQ8AVX512(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc, sumoff int, x unsafe.Pointer, nb, chunks int) int

// quantizeQ8AVX2 is quantizeQ8AVX512 at AVX2 (chunks = block/8 vectors of
// 8), with the same bits as quantizeBlock.
//
//go:noescape
func quantizeQ8AVX2(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc, sumoff int, x unsafe.Pointer, nb, chunks int) int
