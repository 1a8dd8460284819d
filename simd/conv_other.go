//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func gemmF32x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmBF16x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmBF16x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmF32x6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, ks int, xoff int, load int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func gemmBF16Dot6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, ks int, xoff int, load int, bias unsafe.Pointer, add int, tk int, tskip int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func cvtBF16AVX512(dst *uint16, src *float32, n int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func bf16DotPeakAVX512(n int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
