//go:build !amd64 || !gc || purego

package simd

import "unsafe"

// Without assembly no level but Generic is Supported, so these are never
// called; they exist so the dispatch compiles everywhere.

func gemmQ8x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np, pf int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x1P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x2P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x2AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmQ8x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb, nk, np int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
