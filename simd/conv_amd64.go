//go:build amd64 && gc && !purego

package simd

import "unsafe"

// gemmF32x6RowsAVX2 computes 6 rows given by pointers: for each of np
// panels p (of k inputs, consecutive in w) and r < 6, the 16 outputs at
// byte yoff + 64·p of output row y[r] from the k inputs of row x[r], each
// sum in input order (the same bits as gemmF32x6AVX2). The inputs run in
// taps of tk (tk ≥ 1 divides k): after each tap the rows' input offset
// moves on tskip bytes further than the tap's own inputs (a dilated conv's
// taps, rows apart in x); tk = k, tskip = 0 reads each row's k inputs
// contiguously. Every row-list kernel takes its taps so.
//
//go:noescape
func gemmF32x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)

// gemmBF16x6RowsAVX2 is gemmF32x6RowsAVX2 on bf16 weights (conv_bf16.go's
// layout, 32 bytes per input per panel), converted exactly to fp32 and
// summed with FMA in input order (the bits of convGemmBF16Generic).
//
//go:noescape
func gemmBF16x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)

// gemmF32x1RowsAVX2 is gemmF32x6RowsAVX2 for the one row y[0], x[0] (the
// same bits as that row in the 6-row kernel).
//
//go:noescape
func gemmF32x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)

// gemmBF16x1RowsAVX2 is gemmBF16x6RowsAVX2 for the one row y[0], x[0].
//
//go:noescape
func gemmBF16x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)

// gemmF32x6RowsAVX512 is gemmF32x6RowsAVX2 at AVX-512 (a panel's 16
// outputs in one zmm, 4 panels per pass) over a block of K: k inputs of
// each row from input xoff against panels of ks inputs (w points at the
// block's first weight of the first panel), starting from the outputs when
// load ≠ 0, else from zero. The same bits as the AVX2 kernel, every sum in
// input order with FMA, whatever the blocks. k must be ≥ 1. Taps as the
// AVX2 kernel's; a block holds whole taps, and its xoff counts the inputs
// the taps before it skipped.
//
//go:noescape
func gemmF32x6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, ks int, xoff int, load int, tk int, tskip int)

// gemmBF16Dot6RowsAVX512 is the bf16 row-list kernel at AVX-512 BF16: 6
// rows of bf16 inputs given by pointers against np panels (bf16dot.go's
// layout) over a block of K, as gemmF32x6RowsAVX512: k pairs of each row
// from pair xoff against panels of ks pairs (w points at the block's first
// pair of the first panel), starting from the outputs when load ≠ 0, else from zero; each
// output accumulated pair after pair by VDPBF16PS (the bits of
// convGemmBF16DotGeneric, whatever the blocks). k must be ≥ 1. Then, before
// the stores, bias (nil: none; 16 floats per panel at byte yoff) is added
// to each output, then, when add ≠ 0, the output's old value (a fused
// residual add): the bits of the sums stored and two Add passes after.
// The pairs run in taps of tk (tk ≥ 1 divides k): after each tap the
// rows' input offset moves on tskip bytes further than the tap's own pairs
// (a dilated conv's taps, rows apart in x); tk = k, tskip = 0 reads each
// row's pairs contiguously.
//
//go:noescape
func gemmBF16Dot6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, ks int, xoff int, load int, bias unsafe.Pointer, add int, tk int, tskip int)

// cvtBF16AVX512 rounds n/16·16 floats from src to bf16 into dst
// (VCVTNEPS2BF16: to nearest even, denormals to zero).
//
//go:noescape
func cvtBF16AVX512(dst *uint16, src *float32, n int)

//go:noescape
func bf16DotPeakAVX512(n int)
