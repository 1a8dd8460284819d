//go:build amd64 && gc && !purego

#include "textflag.h"

// func quantizeQ8AVX512(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc int, sumoff int, x unsafe.Pointer, nb int, chunks int) int
//
// Per block: amax = max |x| as bits (VPANDD, VPMAXUD), xs = float32(amax/127.0)
// in float64, inv = float32(1.0/xs) in float64, q = clamp(RNE(x·inv), ±127)
// (VCVTPS2DQ under the default MXCSR), the same operations as quantizeBlock.
//   DI dst, R8 ld, SI sc, R9 ldsc, R10 sumoff, DX x, CX blocks left,
//   R11 chunks, R12 blocks done, BX/R13 walkers, AX/R14 scratch.
//   Z31 0x7fffffff, Z30 -127, Z29 127, X14 127.0, X15 1.0.
TEXT ·quantizeQ8AVX512(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ sc+16(FP), SI
	MOVQ ldsc+24(FP), R9
	MOVQ sumoff+32(FP), R10
	MOVQ x+40(FP), DX
	MOVQ nb+48(FP), CX
	MOVQ chunks+56(FP), R11
	XORQ R12, R12
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z31
	MOVL $-127, AX
	VPBROADCASTD AX, Z30
	MOVL $127, AX
	VPBROADCASTD AX, Z29
	MOVQ $0x405FC00000000000, AX
	MOVQ AX, X14
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X15
	TESTQ CX, CX
	JZ done

block:
	VPXORD Z0, Z0, Z0
	MOVQ DX, BX
	MOVQ R11, AX
amax:
	VPANDD (BX), Z31, Z1
	VPMAXUD Z1, Z0, Z0
	ADDQ $64, BX
	DECQ AX
	JNZ amax
	VEXTRACTI64X4 $1, Z0, Y1
	VPMAXUD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	TESTL AX, AX
	JZ zero
	VCVTSS2SD X0, X0, X0
	VDIVSD X14, X0, X0
	VCVTSD2SS X0, X0, X0
	VMOVD X0, AX
	CMPL AX, $0x00800000
	JB done                       // subnormal scale: the Go path takes this block
	MOVL AX, (SI)
	VCVTSS2SD X0, X0, X2
	VDIVSD X2, X15, X2
	VCVTSD2SS X2, X2, X2
	VBROADCASTSS X2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ DX, BX
	MOVQ DI, R13
	MOVQ R11, AX
quant:
	VMULPS (BX), Z2, Z1
	VCVTPS2DQ Z1, Z1
	VPMAXSD Z30, Z1, Z1
	VPMINSD Z29, Z1, Z1
	VPADDD Z1, Z3, Z3
	VPMOVDB Z1, X1
	VMOVD X1, R14
	MOVL R14, (R13)
	ADDQ R8, R13
	VPEXTRD $1, X1, R14
	MOVL R14, (R13)
	ADDQ R8, R13
	VPEXTRD $2, X1, R14
	MOVL R14, (R13)
	ADDQ R8, R13
	VPEXTRD $3, X1, R14
	MOVL R14, (R13)
	ADDQ R8, R13
	ADDQ $64, BX
	DECQ AX
	JNZ quant
	VEXTRACTI64X4 $1, Z3, Y1
	VPADDD Y1, Y3, Y3
	VEXTRACTI128 $1, Y3, X1
	VPADDD X1, X3, X3
	VPSHUFD $0x4e, X3, X1
	VPADDD X1, X3, X3
	VPSHUFD $0xb1, X3, X1
	VPADDD X1, X3, X3
	VMOVD X3, AX
	SHLL $7, AX
	NEGL AX
	MOVL AX, (SI)(R10*1)
	JMP next

zero:
	MOVL $0, (SI)
	MOVL $0, (SI)(R10*1)
	MOVQ DX, BX
	MOVQ DI, R13
	MOVQ R11, AX
	SHLQ $2, AX
zerow:
	MOVL $0, (R13)
	ADDQ R8, R13
	DECQ AX
	JNZ zerow
	MOVQ R11, AX
	SHLQ $6, AX
	LEAQ (DX)(AX*1), BX

next:
	MOVQ BX, DX
	MOVQ R13, DI
	ADDQ R9, SI
	INCQ R12
	DECQ CX
	JNZ block

done:
	VZEROUPPER
	MOVQ R12, ret+64(FP)
	RET

// func quantizeQ8AVX2(dst unsafe.Pointer, ld int, sc unsafe.Pointer, ldsc int, sumoff int, x unsafe.Pointer, nb int, chunks int) int
//
// quantizeQ8AVX512 at AVX2: chunks = block/8. amax over ymm vectors, then
// 4 values at a time (one dst word): q = clamp(RNE(x·inv), ±127) through
// VCVTPS2DQ, packed with VPACKSSDW + VPACKSSWB (exact: |q| ≤ 127).
//   DI dst, R8 ld, SI sc, R9 ldsc, R10 sumoff, DX x, CX blocks left,
//   R11 chunks, R12 blocks done, BX/R13 walkers, AX/R14 scratch.
//   Y15 0x7fffffff, X13 -127, X12 127, X14 127.0, X11 1.0.
TEXT ·quantizeQ8AVX2(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ sc+16(FP), SI
	MOVQ ldsc+24(FP), R9
	MOVQ sumoff+32(FP), R10
	MOVQ x+40(FP), DX
	MOVQ nb+48(FP), CX
	MOVQ chunks+56(FP), R11
	XORQ R12, R12
	MOVL $0x7fffffff, AX
	MOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVL $-127, AX
	MOVQ AX, X13
	VPBROADCASTD X13, X13
	MOVL $127, AX
	MOVQ AX, X12
	VPBROADCASTD X12, X12
	MOVQ $0x405FC00000000000, AX
	MOVQ AX, X14
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X11
	TESTQ CX, CX
	JZ a2done

a2block:
	VPXOR Y0, Y0, Y0
	MOVQ DX, BX
	MOVQ R11, AX
a2amax:
	VPAND (BX), Y15, Y1
	VPMAXUD Y1, Y0, Y0
	ADDQ $32, BX
	DECQ AX
	JNZ a2amax
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	TESTL AX, AX
	JZ a2zero
	VCVTSS2SD X0, X0, X0
	VDIVSD X14, X0, X0
	VCVTSD2SS X0, X0, X0
	VMOVD X0, AX
	CMPL AX, $0x00800000
	JB a2done                     // subnormal scale: the Go path takes this block
	MOVL AX, (SI)
	VCVTSS2SD X0, X0, X2
	VDIVSD X2, X11, X2
	VCVTSD2SS X2, X2, X2
	VBROADCASTSS X2, X2
	VPXOR X3, X3, X3
	MOVQ DX, BX
	MOVQ DI, R13
	MOVQ R11, AX
	SHLQ $1, AX
a2quant:
	VMULPS (BX), X2, X1
	VCVTPS2DQ X1, X1
	VPMAXSD X13, X1, X1
	VPMINSD X12, X1, X1
	VPADDD X1, X3, X3
	VPACKSSDW X1, X1, X1
	VPACKSSWB X1, X1, X1
	VMOVD X1, R14
	MOVL R14, (R13)
	ADDQ R8, R13
	ADDQ $16, BX
	DECQ AX
	JNZ a2quant
	VPSHUFD $0x4e, X3, X1
	VPADDD X1, X3, X3
	VPSHUFD $0xb1, X3, X1
	VPADDD X1, X3, X3
	VMOVD X3, AX
	SHLL $7, AX
	NEGL AX
	MOVL AX, (SI)(R10*1)
	JMP a2next

a2zero:
	MOVL $0, (SI)
	MOVL $0, (SI)(R10*1)
	MOVQ DI, R13
	MOVQ R11, AX
	SHLQ $1, AX
a2zerow:
	MOVL $0, (R13)
	ADDQ R8, R13
	DECQ AX
	JNZ a2zerow
	MOVQ R11, AX
	SHLQ $5, AX
	LEAQ (DX)(AX*1), BX

a2next:
	MOVQ BX, DX
	MOVQ R13, DI
	ADDQ R9, SI
	INCQ R12
	DECQ CX
	JNZ a2block

a2done:
	VZEROUPPER
	MOVQ R12, ret+64(FP)
	RET
