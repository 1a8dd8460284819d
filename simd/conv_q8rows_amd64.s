//go:build amd64 && gc && !purego

#include "textflag.h"
#include "rowlist_amd64.h"

// The int8 conv row kernel (conv_q8rows.go has the arithmetic): 6 output
// rows given by pointers (y: float32 outputs, x: quantized input rows) ×
// np panels of 16 outputs, 4 panels at a time (Z0–Z23 the int32 sums,
// Z24–Z27 the panels' weights), then 2 (Z0–Z11), then 1 (Z0–Z5). Per step
// the 4 input bytes of a row (u8) are broadcast (Z28/Z29) and VPDPBUSD
// adds their products with each panel's 16 outputs × 4 weights (s8). A
// tap's sums start at the panels' corr; after its tg steps the row's
// scale is the float32 just past its inputs, and each sum becomes
// float32(sum) · (sx · sw), the first tap's stored, a later tap's added
// to the stored value by one fused multiply-add. After the last tap the
// bias (when not nil) is added, then the outputs' old values (add ≠ 0,
// taps = 1): all loaded before any store, so a padding row repeating the
// last row writes the same values. After each tap the rows' input offset
// skips tskip more bytes (the next tap's row). pb: bytes of one panel's
// weights; mstride: bytes of one tap's meta (all panels); yoff: bytes of
// the first panel's outputs in a row.

// The kernel's steps for one row against 1, 2 or 4 panels (weights, then
// scales, in Z24–Z27; the variant for more panels extends the one for
// fewer, so all three emit their instructions in the same order).

// Every per-row step takes (xr, yi, b, a0…): the row's input pointer xr,
// its place yi in the output list (bytes from R10), the register b that
// broadcasts its inputs, and its sums / outputs a0… (one per panel); a
// step ignores what it does not use, so that Q8ROWSn can run any step
// over the six rows.

// Q8ROWSn runs step M for each of the 6 rows against n panels, in row
// order (the broadcast registers alternate so two rows' loads overlap).
#define Q8ROWS1(M) \
	M(AX, 0, Z28, Z0); \
	M(BX, 8, Z29, Z1); \
	M(CX, 16, Z28, Z2); \
	M(SI, 24, Z29, Z3); \
	M(R8, 32, Z28, Z4); \
	M(R9, 40, Z29, Z5)
#define Q8ROWS2(M) \
	M(AX, 0, Z28, Z0, Z1); \
	M(BX, 8, Z29, Z2, Z3); \
	M(CX, 16, Z28, Z4, Z5); \
	M(SI, 24, Z29, Z6, Z7); \
	M(R8, 32, Z28, Z8, Z9); \
	M(R9, 40, Z29, Z10, Z11)
#define Q8ROWS4(M) \
	M(AX, 0, Z28, Z0, Z1, Z2, Z3); \
	M(BX, 8, Z29, Z4, Z5, Z6, Z7); \
	M(CX, 16, Z28, Z8, Z9, Z10, Z11); \
	M(SI, 24, Z29, Z12, Z13, Z14, Z15); \
	M(R8, 32, Z28, Z16, Z17, Z18, Z19); \
	M(R9, 40, Z29, Z20, Z21, Z22, Z23)

// Q8INITn starts a row's sums at the panels' corr (in Z24…).
#define Q8INIT1(xr, yi, b, a0) \
	VMOVDQA32 Z24, a0
#define Q8INIT2(xr, yi, b, a0, a1) \
	Q8INIT1(xr, yi, b, a0); \
	VMOVDQA32 Z25, a1
#define Q8INIT4(xr, yi, b, a0, a1, a2, a3) \
	Q8INIT2(xr, yi, b, a0, a1); \
	VMOVDQA32 Z26, a2; \
	VMOVDQA32 Z27, a3

// Q8STEPn adds one group of 4 inputs of the row at xr (broadcast into b)
// times the panels' weights to the row's sums a0….
#define Q8STEP1(xr, yi, b, a0) \
	VPBROADCASTD (xr)(R13*1), b; \
	VPDPBUSD Z24, b, a0
#define Q8STEP2(xr, yi, b, a0, a1) \
	Q8STEP1(xr, yi, b, a0); \
	VPDPBUSD Z25, b, a1
#define Q8STEP4(xr, yi, b, a0, a1, a2, a3) \
	Q8STEP2(xr, yi, b, a0, a1); \
	VPDPBUSD Z26, b, a2; \
	VPDPBUSD Z27, b, a3

// Q8SCALEn sets Z24… to the row's scale (after its tap's inputs, at xr)
// times each panel's weight scales.
#define Q8SCALE1(xr) \
	VBROADCASTSS (xr)(R13*1), Z28; \
	VMULPS 64(R14), Z28, Z24
#define Q8SCALE2(xr) \
	Q8SCALE1(xr); \
	VMULPS 192(R14), Z28, Z25
#define Q8SCALE4(xr) \
	Q8SCALE2(xr); \
	VMULPS 320(R14), Z28, Z26; \
	VMULPS 448(R14), Z28, Z27

// Q8CVTMUL turns one panel's first-tap sums a into outputs: float32(a)·s.
#define Q8CVTMUL(a, s) \
	VCVTDQ2PS a, a; \
	VMULPS s, a, a

// Q8CVTFMA adds one panel's later-tap sums a to its stored outputs at off
// (row DI, + R12): fma(float32(a), s, y).
#define Q8CVTFMA(a, s, off) \
	VCVTDQ2PS a, a; \
	VFMADD213PS off(DI)(R12*1), s, a

// Q8FIRSTn turns a row's first-tap sums into its outputs.
#define Q8FIRST1(xr, yi, b, a0) \
	Q8SCALE1(xr); \
	Q8CVTMUL(a0, Z24)
#define Q8FIRST2(xr, yi, b, a0, a1) \
	Q8SCALE2(xr); \
	Q8CVTMUL(a0, Z24); \
	Q8CVTMUL(a1, Z25)
#define Q8FIRST4(xr, yi, b, a0, a1, a2, a3) \
	Q8SCALE4(xr); \
	Q8CVTMUL(a0, Z24); \
	Q8CVTMUL(a1, Z25); \
	Q8CVTMUL(a2, Z26); \
	Q8CVTMUL(a3, Z27)

// Q8NEXTn adds a row's later-tap sums to its stored outputs.
#define Q8NEXT1(xr, yi, b, a0) \
	Q8SCALE1(xr); \
	MOVQ yi(R10), DI; \
	Q8CVTFMA(a0, Z24, 0)
#define Q8NEXT2(xr, yi, b, a0, a1) \
	Q8SCALE2(xr); \
	MOVQ yi(R10), DI; \
	Q8CVTFMA(a0, Z24, 0); \
	Q8CVTFMA(a1, Z25, 64)
#define Q8NEXT4(xr, yi, b, a0, a1, a2, a3) \
	Q8SCALE4(xr); \
	MOVQ yi(R10), DI; \
	Q8CVTFMA(a0, Z24, 0); \
	Q8CVTFMA(a1, Z25, 64); \
	Q8CVTFMA(a2, Z26, 128); \
	Q8CVTFMA(a3, Z27, 192)

// Q8ADDMn adds the panels' floats at DI (+ R12) to a row's outputs.
#define Q8ADDM1(a0) \
	VADDPS 0(DI)(R12*1), a0, a0
#define Q8ADDM2(a0, a1) \
	Q8ADDM1(a0); \
	VADDPS 64(DI)(R12*1), a1, a1
#define Q8ADDM4(a0, a1, a2, a3) \
	Q8ADDM2(a0, a1); \
	VADDPS 128(DI)(R12*1), a2, a2; \
	VADDPS 192(DI)(R12*1), a3, a3

// Q8BIASn adds the bias (at DI) to a row's outputs; Q8RESn adds the row's
// old outputs (residual).
#define Q8BIAS1(xr, yi, b, a0) \
	Q8ADDM1(a0)
#define Q8BIAS2(xr, yi, b, a0, a1) \
	Q8ADDM2(a0, a1)
#define Q8BIAS4(xr, yi, b, a0, a1, a2, a3) \
	Q8ADDM4(a0, a1, a2, a3)
#define Q8RES1(xr, yi, b, a0) \
	MOVQ yi(R10), DI; \
	Q8ADDM1(a0)
#define Q8RES2(xr, yi, b, a0, a1) \
	MOVQ yi(R10), DI; \
	Q8ADDM2(a0, a1)
#define Q8RES4(xr, yi, b, a0, a1, a2, a3) \
	MOVQ yi(R10), DI; \
	Q8ADDM4(a0, a1, a2, a3)

// Q8STOREn stores a row's outputs to its place in the list.
#define Q8STORE1(xr, yi, b, a0) \
	MOVQ yi(R10), DI; \
	VMOVUPS a0, 0(DI)(R12*1)
#define Q8STORE2(xr, yi, b, a0, a1) \
	Q8STORE1(xr, yi, b, a0); \
	VMOVUPS a1, 64(DI)(R12*1)
#define Q8STORE4(xr, yi, b, a0, a1, a2, a3) \
	Q8STORE2(xr, yi, b, a0, a1); \
	VMOVUPS a2, 128(DI)(R12*1); \
	VMOVUPS a3, 192(DI)(R12*1)

// func q8Conv6RowsAVX512(y *uintptr, x *uintptr, w unsafe.Pointer, meta unsafe.Pointer, np int, pb int, yoff int, mstride int, taps int, tg int, tskip int, bias unsafe.Pointer, add int)
TEXT ·q8Conv6RowsAVX512(SB), NOSPLIT, $32-104
	ROWLIST6
	MOVQ pb+40(FP), R11
	MOVQ yoff+48(FP), R12
	MOVQ meta+24(FP), DI
	MOVQ DI, mb-24(SP)
	MOVQ np+32(FP), DI
	MOVQ DI, npr-16(SP)
q8next:
	CMPQ npr-16(SP), $4
	JGE q8quad
	CMPQ npr-16(SP), $2
	JGE q8pair
	CMPQ npr-16(SP), $1
	JGE q8one
	VZEROUPPER
	RET
q8quad:
	MOVQ mb-24(SP), R14
	MOVQ taps+64(FP), DI
	MOVQ DI, rem-8(SP)
	MOVQ $1, fst-32(SP)
	XORQ R13, R13
	LEAQ (DX)(R11*2), R15
q8quadtap:
	VMOVDQU32 0(R14), Z24
	VMOVDQU32 128(R14), Z25
	VMOVDQU32 256(R14), Z26
	VMOVDQU32 384(R14), Z27
	Q8ROWS4(Q8INIT4)
	MOVQ tg+72(FP), DI
q8quadstep:
	VMOVDQU32 (DX), Z24
	VMOVDQU32 (DX)(R11*1), Z25
	VMOVDQU32 (R15), Z26
	VMOVDQU32 (R15)(R11*1), Z27
	Q8ROWS4(Q8STEP4)
	ADDQ $64, DX
	ADDQ $64, R15
	ADDQ $4, R13
	DECQ DI
	JNZ q8quadstep
	CMPQ fst-32(SP), $0
	JEQ q8quadmid
	Q8ROWS4(Q8FIRST4)
	MOVQ $0, fst-32(SP)
	JMP q8quadfin
q8quadmid:
	Q8ROWS4(Q8NEXT4)
q8quadfin:
	DECQ rem-8(SP)
	JZ q8quadlast
	Q8ROWS4(Q8STORE4)
	ADDQ tskip+80(FP), R13
	ADDQ mstride+56(FP), R14
	JMP q8quadtap
q8quadlast:
	MOVQ bias+88(FP), DI
	TESTQ DI, DI
	JZ q8quadnb
	Q8ROWS4(Q8BIAS4)
q8quadnb:
	CMPQ add+96(FP), $0
	JEQ q8quadst
	Q8ROWS4(Q8RES4)
q8quadst:
	Q8ROWS4(Q8STORE4)
	ADDQ R11, DX
	ADDQ R11, DX
	ADDQ R11, DX
	ADDQ $512, mb-24(SP)
	ADDQ $256, R12
	SUBQ $4, npr-16(SP)
	JMP q8next
q8pair:
	MOVQ mb-24(SP), R14
	MOVQ taps+64(FP), DI
	MOVQ DI, rem-8(SP)
	MOVQ $1, fst-32(SP)
	XORQ R13, R13
q8pairtap:
	VMOVDQU32 0(R14), Z24
	VMOVDQU32 128(R14), Z25
	Q8ROWS2(Q8INIT2)
	MOVQ tg+72(FP), DI
q8pairstep:
	VMOVDQU32 (DX), Z24
	VMOVDQU32 (DX)(R11*1), Z25
	Q8ROWS2(Q8STEP2)
	ADDQ $64, DX
	ADDQ $4, R13
	DECQ DI
	JNZ q8pairstep
	CMPQ fst-32(SP), $0
	JEQ q8pairmid
	Q8ROWS2(Q8FIRST2)
	MOVQ $0, fst-32(SP)
	JMP q8pairfin
q8pairmid:
	Q8ROWS2(Q8NEXT2)
q8pairfin:
	DECQ rem-8(SP)
	JZ q8pairlast
	Q8ROWS2(Q8STORE2)
	ADDQ tskip+80(FP), R13
	ADDQ mstride+56(FP), R14
	JMP q8pairtap
q8pairlast:
	MOVQ bias+88(FP), DI
	TESTQ DI, DI
	JZ q8pairnb
	Q8ROWS2(Q8BIAS2)
q8pairnb:
	CMPQ add+96(FP), $0
	JEQ q8pairst
	Q8ROWS2(Q8RES2)
q8pairst:
	Q8ROWS2(Q8STORE2)
	ADDQ R11, DX
	ADDQ $256, mb-24(SP)
	ADDQ $128, R12
	SUBQ $2, npr-16(SP)
	JMP q8next
q8one:
	MOVQ mb-24(SP), R14
	MOVQ taps+64(FP), DI
	MOVQ DI, rem-8(SP)
	MOVQ $1, fst-32(SP)
	XORQ R13, R13
q8onetap:
	VMOVDQU32 0(R14), Z24
	Q8ROWS1(Q8INIT1)
	MOVQ tg+72(FP), DI
q8onestep:
	VMOVDQU32 (DX), Z24
	Q8ROWS1(Q8STEP1)
	ADDQ $64, DX
	ADDQ $4, R13
	DECQ DI
	JNZ q8onestep
	CMPQ fst-32(SP), $0
	JEQ q8onemid
	Q8ROWS1(Q8FIRST1)
	MOVQ $0, fst-32(SP)
	JMP q8onefin
q8onemid:
	Q8ROWS1(Q8NEXT1)
q8onefin:
	DECQ rem-8(SP)
	JZ q8onelast
	Q8ROWS1(Q8STORE1)
	ADDQ tskip+80(FP), R13
	ADDQ mstride+56(FP), R14
	JMP q8onetap
q8onelast:
	MOVQ bias+88(FP), DI
	TESTQ DI, DI
	JZ q8onenb
	Q8ROWS1(Q8BIAS1)
q8onenb:
	CMPQ add+96(FP), $0
	JEQ q8onest
	Q8ROWS1(Q8RES1)
q8onest:
	Q8ROWS1(Q8STORE1)
	ADDQ $128, mb-24(SP)
	ADDQ $64, R12
	SUBQ $1, npr-16(SP)
	JMP q8next

// func quantQ8RowsAVX512(dst *byte, src *float32, n int, in int, ldx int, S int)
// quantizes n rows of in floats (in a multiple of 16; row r at src + r·ldx
// bytes) to dst + r·S: in bytes q + 128 (q8Round), then the scale (q8Scale).
TEXT ·quantQ8RowsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z16
	MOVL $127, AX
	VPBROADCASTD AX, Z17
	MOVL $-127, AX
	VPBROADCASTD AX, Z18
	MOVL $128, AX
	VPBROADCASTD AX, Z19
	MOVL $0x42fe0000, AX // 127.0
	VMOVD AX, X20
	MOVL $0x0da24260, AX // float32(1e-30), q8Tiny
	VMOVD AX, X21
qrow:
	MOVQ in+24(FP), CX
	SHRQ $4, CX
	VPXORD Z0, Z0, Z0
	XORQ BX, BX
qmax:
	VANDPS (SI)(BX*1), Z16, Z1
	VMAXPS Z1, Z0, Z0
	ADDQ $64, BX
	DECQ CX
	JNZ qmax
	VEXTRACTF32X8 $1, Z0, Y1
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	MOVQ in+24(FP), BX
	VUCOMISS X21, X0
	JCS qzero // amax < q8Tiny (or unordered)
	VDIVSS X20, X0, X2 // s = amax / 127
	VDIVSS X0, X20, X3 // inv = 127 / amax
	VMOVSS X2, (DI)(BX*1)
	VBROADCASTSS X3, Z3
	MOVQ BX, CX
	SHRQ $4, CX
	XORQ BX, BX
	XORQ DX, DX
qq:
	VMULPS (SI)(BX*1), Z3, Z1
	VCVTPS2DQ Z1, Z1
	VPMINSD Z17, Z1, Z1
	VPMAXSD Z18, Z1, Z1
	VPADDD Z19, Z1, Z1
	VPMOVDB Z1, (DI)(DX*1)
	ADDQ $64, BX
	ADDQ $16, DX
	DECQ CX
	JNZ qq
	JMP qnext
qzero:
	MOVL $0, (DI)(BX*1)
	MOVQ BX, CX
	SHRQ $4, CX
	XORQ DX, DX
	VPMOVDB Z19, X1
qz:
	VMOVDQU X1, (DI)(DX*1)
	ADDQ $16, DX
	DECQ CX
	JNZ qz
qnext:
	ADDQ ldx+32(FP), SI
	ADDQ S+40(FP), DI
	DECQ R8
	JNZ qrow
	VZEROUPPER
	RET
