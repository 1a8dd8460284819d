//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func gemmF32x6AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
