//go:build amd64 && gc && !purego

package simd

import "unsafe"

// q8Conv6RowsAVX512 is the int8 conv row kernel (conv_q8rows_amd64.s): 6
// rows listed at y and x (output rows, quantized input rows) × np panels
// of the weights at w, with their meta (corr, scales) at meta, each row's
// taps tskip bytes apart past a tap's inputs, the bias (nil: none) added
// after the last tap, then the outputs' old values when add ≠ 0.
//
//go:noescape
func q8Conv6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, meta unsafe.Pointer, np int, pb int, yoff int, mstride int, taps int, tg int, tskip int, bias unsafe.Pointer, add int)

// quantQ8RowsAVX512 quantizes n rows of in floats (a multiple of 16; rows
// ldx bytes apart) into rows of S bytes at dst (quantizeRowsQ8's layout).
//
//go:noescape
func quantQ8RowsAVX512(dst *byte, src *float32, n int, in int, ldx int, S int)
