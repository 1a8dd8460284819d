//go:build amd64 && gc && !purego

package simd

import "unsafe"

// gemmF32x6RowsAVX2 computes 6 rows given by pointers: for each of np
// panels p (of k inputs, consecutive in w) and r < 6, the 16 outputs at
// byte yoff + 64·p of output row y[r] from the k inputs of row x[r], each
// sum in input order (the same bits as gemmF32x6AVX2).
//
//go:noescape
func gemmF32x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int)
