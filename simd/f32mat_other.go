//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func gemmF32x8AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x4AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x2AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x1AVX512(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x4AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x2AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, w unsafe.Pointer, k int, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
