//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func q8Conv6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, meta unsafe.Pointer, np int, pb int, yoff int, mstride int, taps int, tg int, tskip int, bias unsafe.Pointer, add int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func quantQ8RowsAVX512(dst *byte, src *float32, n int, in int, ldx int, S int) {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
