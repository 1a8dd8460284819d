//go:build !amd64 || !gc || purego

package simd

import "unsafe"

// Without assembly no level but Generic is Supported, so these are never
// called; they exist so the dispatch compiles everywhere.

func gemmQ4x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ4x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, np int, tab unsafe.Pointer) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
