//go:build amd64 && gc && !purego

#include "textflag.h"
#include "rowlist_amd64.h"

// NEXTTAP ends one tap of a kernel below (all four share the frame layout
// tk+48(FP), tskip+56(FP) and the local rem-8(SP), the inputs left): the
// rows' input offset R13 skips tskip bytes past the tap's own inputs, and
// the kernel runs the next tap of tk inputs from loop while any are left.
// go vet does not check argument offsets inside a macro: the dilated
// cases of TestBackendConvAgainstTorchDefinition and TestBackendConvBF16
// at the avx2 level fail on a wrong one (checked with tskip+48).
#define NEXTTAP(loop) \
	ADDQ tskip+56(FP), R13; \
	MOVQ tk+48(FP), DI; \
	SUBQ DI, rem-8(SP); \
	JNZ loop

// The conv GEMM's row-list micro-kernel: 6 output rows, each with its own
// input row pointer (x[r]) and output row pointer (y[r]), so rows of
// different segments and phases share one pass. Per panel: 12 ymm
// accumulators (row × half panel, each summed in input order), weights in
// Y12/Y13, broadcasts in Y14/Y15. AX BX CX SI R8 R9 the 6 input rows, R13
// the byte offset into them, DX the weights (panel after panel), R10 the
// output pointers, R12 the byte offset of the panel in the output rows,
// DI inputs left, R14 panels left. The k loop does two inputs per
// iteration.
// func gemmF32x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)
TEXT ·gemmF32x6RowsAVX2(SB), NOSPLIT, $8-64
	ROWLIST6
	MOVQ np+32(FP), R14
	MOVQ yoff+40(FP), R12
r6panel:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ R13, R13
	MOVQ k+24(FP), DI
	MOVQ DI, rem-8(SP)
r6t:
	MOVQ tk+48(FP), DI
	SHRQ $1, DI
	JZ r6tail
r6k2:
	VMOVUPS 0(DX), Y12
	VMOVUPS 32(DX), Y13
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 0(BX)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 0(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 0(SI)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 0(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 0(R9)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	VMOVUPS 64(DX), Y12
	VMOVUPS 96(DX), Y13
	VBROADCASTSS 4(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 4(BX)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 4(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 4(SI)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 4(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 4(R9)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $128, DX
	ADDQ $8, R13
	DECQ DI
	JNZ r6k2
r6tail:
	MOVQ tk+48(FP), DI
	ANDQ $1, DI
	JZ r6next
	VMOVUPS 0(DX), Y12
	VMOVUPS 32(DX), Y13
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 0(BX)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 0(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 0(SI)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 0(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 0(R9)(R13*1), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $64, DX
	ADDQ $4, R13
r6next:
	NEXTTAP(r6t)
r6store:
	MOVQ 0(R10), R11
	VMOVUPS Y0, (R11)(R12*1)
	VMOVUPS Y1, 32(R11)(R12*1)
	MOVQ 8(R10), R11
	VMOVUPS Y2, (R11)(R12*1)
	VMOVUPS Y3, 32(R11)(R12*1)
	MOVQ 16(R10), R11
	VMOVUPS Y4, (R11)(R12*1)
	VMOVUPS Y5, 32(R11)(R12*1)
	MOVQ 24(R10), R11
	VMOVUPS Y6, (R11)(R12*1)
	VMOVUPS Y7, 32(R11)(R12*1)
	MOVQ 32(R10), R11
	VMOVUPS Y8, (R11)(R12*1)
	VMOVUPS Y9, 32(R11)(R12*1)
	MOVQ 40(R10), R11
	VMOVUPS Y10, (R11)(R12*1)
	VMOVUPS Y11, 32(R11)(R12*1)
	ADDQ $64, R12
	DECQ R14
	JNZ r6panel
	VZEROUPPER
	RET

// The bf16 row-list micro-kernel: gemmF32x6RowsAVX2 with each input's 16
// weights loaded as 32 bytes of bf16 pairs (w[i], w[8+i]): a shift left by
// 16 gives outputs 0–7 as fp32 (Y12), a mask of the high halves outputs
// 8–15 (Y13). Y15 holds the mask, so every broadcast goes to Y14.
// func gemmBF16x6RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)
TEXT ·gemmBF16x6RowsAVX2(SB), NOSPLIT, $8-64
	ROWLIST6
	MOVQ np+32(FP), R14
	MOVQ yoff+40(FP), R12
	MOVL $0xffff0000, R11
	MOVQ R11, X15
	VPBROADCASTD X15, Y15
b6panel:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ R13, R13
	MOVQ k+24(FP), DI
	MOVQ DI, rem-8(SP)
b6t:
	MOVQ tk+48(FP), DI
	SHRQ $1, DI
	JZ b6tail
b6k2:
	VMOVDQU 0(DX), Y13
	VPSLLD $16, Y13, Y12
	VPAND Y15, Y13, Y13
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 0(BX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS 0(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 0(SI)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS 0(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 0(R9)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	VMOVDQU 32(DX), Y13
	VPSLLD $16, Y13, Y12
	VPAND Y15, Y13, Y13
	VBROADCASTSS 4(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 4(BX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS 4(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 4(SI)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS 4(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 4(R9)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	ADDQ $64, DX
	ADDQ $8, R13
	DECQ DI
	JNZ b6k2
b6tail:
	MOVQ tk+48(FP), DI
	ANDQ $1, DI
	JZ b6next
	VMOVDQU 0(DX), Y13
	VPSLLD $16, Y13, Y12
	VPAND Y15, Y13, Y13
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 0(BX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS 0(CX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 0(SI)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS 0(R8)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 0(R9)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	ADDQ $32, DX
	ADDQ $4, R13
b6next:
	NEXTTAP(b6t)
b6store:
	MOVQ 0(R10), R11
	VMOVUPS Y0, (R11)(R12*1)
	VMOVUPS Y1, 32(R11)(R12*1)
	MOVQ 8(R10), R11
	VMOVUPS Y2, (R11)(R12*1)
	VMOVUPS Y3, 32(R11)(R12*1)
	MOVQ 16(R10), R11
	VMOVUPS Y4, (R11)(R12*1)
	VMOVUPS Y5, 32(R11)(R12*1)
	MOVQ 24(R10), R11
	VMOVUPS Y6, (R11)(R12*1)
	VMOVUPS Y7, 32(R11)(R12*1)
	MOVQ 32(R10), R11
	VMOVUPS Y8, (R11)(R12*1)
	VMOVUPS Y9, 32(R11)(R12*1)
	MOVQ 40(R10), R11
	VMOVUPS Y10, (R11)(R12*1)
	VMOVUPS Y11, 32(R11)(R12*1)
	ADDQ $64, R12
	DECQ R14
	JNZ b6panel
	VZEROUPPER
	RET

// The one-row forms of the row-list kernels, for a list's last one or two
// rows (padding them to 6 would compute each 3–6 times): the same two
// accumulators per panel as row 0 of the 6-row kernels, summed in input
// order, so a row's bits do not depend on which kernel ran it. AX the
// input row, R13 the byte offset into it, DX the weights, R10 the output
// pointer, R12 the panel's byte offset, DI inputs left, R14 panels left.
// func gemmF32x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)
TEXT ·gemmF32x1RowsAVX2(SB), NOSPLIT, $8-64
	MOVQ x+8(FP), R10
	MOVQ 0(R10), AX
	MOVQ y+0(FP), R10
	MOVQ 0(R10), R10
	MOVQ w+16(FP), DX
	MOVQ np+32(FP), R14
	MOVQ yoff+40(FP), R12
f1panel:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ R13, R13
	MOVQ k+24(FP), DI
	MOVQ DI, rem-8(SP)
f1t:
	MOVQ tk+48(FP), DI
f1k:
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS 0(DX), Y14, Y0
	VFMADD231PS 32(DX), Y14, Y1
	ADDQ $64, DX
	ADDQ $4, R13
	DECQ DI
	JNZ f1k
	NEXTTAP(f1t)
	VMOVUPS Y0, (R10)(R12*1)
	VMOVUPS Y1, 32(R10)(R12*1)
	ADDQ $64, R12
	DECQ R14
	JNZ f1panel
	VZEROUPPER
	RET

// func gemmBF16x1RowsAVX2(y *uintptr, x *uintptr, w unsafe.Pointer, k int, np int, yoff int, tk int, tskip int)
TEXT ·gemmBF16x1RowsAVX2(SB), NOSPLIT, $8-64
	MOVQ x+8(FP), R10
	MOVQ 0(R10), AX
	MOVQ y+0(FP), R10
	MOVQ 0(R10), R10
	MOVQ w+16(FP), DX
	MOVQ np+32(FP), R14
	MOVQ yoff+40(FP), R12
	MOVL $0xffff0000, R11
	MOVQ R11, X15
	VPBROADCASTD X15, Y15
h1panel:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ R13, R13
	MOVQ k+24(FP), DI
	MOVQ DI, rem-8(SP)
h1t:
	MOVQ tk+48(FP), DI
h1k:
	VMOVDQU 0(DX), Y13
	VPSLLD $16, Y13, Y12
	VPAND Y15, Y13, Y13
	VBROADCASTSS 0(AX)(R13*1), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	ADDQ $32, DX
	ADDQ $4, R13
	DECQ DI
	JNZ h1k
	NEXTTAP(h1t)
	VMOVUPS Y0, (R10)(R12*1)
	VMOVUPS Y1, 32(R10)(R12*1)
	ADDQ $64, R12
	DECQ R14
	JNZ h1panel
	VZEROUPPER
	RET
