//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func quantizeQ8AVX512(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc, sumoff int, x unsafe.Pointer, nb, chunks int) int {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func quantizeQ8AVX2(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc, sumoff int, x unsafe.Pointer, nb, chunks int) int {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
