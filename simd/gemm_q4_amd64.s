//go:build amd64 && gc && !purego

#include "textflag.h"

// Q4 GEMM kernels. See gemm_q4_amd64.go for the arguments and
// gemmQ4Generic for the exact computation. Register use (AVX-512 VNNI):
//   DI output panel, R8 ldy, AX x walker, R9 ldx, BX scale walker,
//   R12 ldsc, R11 ldsc/2 (-xsum128 offset), DX code stream, CX the panel's
//   bf16 scale stream, R13 blocks left, R14 panels left, SI store.
//   Z0-Z7 int32 block sums, Z8-Z15 fp32 accumulators, Z16/Z17 the low and
//   high nibbles' levels, Z18 the block's 16 weight scales, Z19 bytes 0x0f,
//   Z20 the codebook (levels+128) in every 128-bit lane.
// Each 64-byte vector holds two groups of 4 inputs for 16 rows (low
// nibbles, then high); VPSHUFB maps the codes to levels+128, which are
// VPDPBUSD's unsigned operand exactly as Q8's weights are, so each block's
// sum starts at -xsum128 = -128·Σqx.

#define Q4SETUP \
	MOVQ y+0(FP), DI; \
	MOVQ ldy+8(FP), R8; \
	MOVQ ldx+24(FP), R9; \
	MOVQ ldsc+40(FP), R12; \
	MOVQ R12, R11; \
	SHRQ $1, R11; \
	MOVQ w+48(FP), DX; \
	MOVQ np+64(FP), R14; \
	MOVL $0x0f0f0f0f, R10; \
	VPBROADCASTD R10, Z19; \
	MOVQ tab+72(FP), R10; \
	VBROADCASTI32X4 (R10), Z20

// Q4LOAD loads the vector at off(DX) and leaves its low nibbles' levels in
// Z16 and its high nibbles' in Z17.
#define Q4LOAD(off) \
	PREFETCHT0 off+2048(DX); \
	VMOVDQU64 off(DX), Z16; \
	VPSRLW $4, Z16, Z17; \
	VPANDD Z19, Z16, Z16; \
	VPANDD Z19, Z17, Z17; \
	VPSHUFB Z16, Z20, Z16; \
	VPSHUFB Z17, Z20, Z17

// Q4PANEL starts a panel: accumulators zeroed, x and scales rewound, CX at
// the panel's scales.
#define Q4PANEL \
	MOVQ x+16(FP), AX; \
	MOVQ sc+32(FP), BX; \
	MOVQ nb+56(FP), R13; \
	MOVQ R13, CX; \
	SHLQ $8, CX; \
	ADDQ DX, CX

// Q4SCALES loads the block's 16 bf16 weight scales into Z18 as fp32.
#define Q4SCALES \
	VPMOVZXWD (CX), Z18; \
	VPSLLD $16, Z18, Z18; \
	ADDQ $32, CX

#define VEPI(acc, facc, off) \
	VCVTDQ2PS acc, acc; \
	VMULPS.BCST off(BX), acc, acc; \
	VMULPS Z18, acc, acc; \
	VADDPS acc, facc, facc

// func gemmQ4x8AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x8AVX512VNNI(SB), NOSPLIT, $0-80
	Q4SETUP
q8panel:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	Q4PANEL
q8block:
	VPBROADCASTD 0(BX)(R11*1), Z0
	VPBROADCASTD 4(BX)(R11*1), Z1
	VPBROADCASTD 8(BX)(R11*1), Z2
	VPBROADCASTD 12(BX)(R11*1), Z3
	VPBROADCASTD 16(BX)(R11*1), Z4
	VPBROADCASTD 20(BX)(R11*1), Z5
	VPBROADCASTD 24(BX)(R11*1), Z6
	VPBROADCASTD 28(BX)(R11*1), Z7
	Q4LOAD(0)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	VPDPBUSD.BCST 16(AX), Z16, Z4
	VPDPBUSD.BCST 20(AX), Z16, Z5
	VPDPBUSD.BCST 24(AX), Z16, Z6
	VPDPBUSD.BCST 28(AX), Z16, Z7
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z0
	VPDPBUSD.BCST 4(AX), Z17, Z1
	VPDPBUSD.BCST 8(AX), Z17, Z2
	VPDPBUSD.BCST 12(AX), Z17, Z3
	VPDPBUSD.BCST 16(AX), Z17, Z4
	VPDPBUSD.BCST 20(AX), Z17, Z5
	VPDPBUSD.BCST 24(AX), Z17, Z6
	VPDPBUSD.BCST 28(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(64)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	VPDPBUSD.BCST 16(AX), Z16, Z4
	VPDPBUSD.BCST 20(AX), Z16, Z5
	VPDPBUSD.BCST 24(AX), Z16, Z6
	VPDPBUSD.BCST 28(AX), Z16, Z7
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z0
	VPDPBUSD.BCST 4(AX), Z17, Z1
	VPDPBUSD.BCST 8(AX), Z17, Z2
	VPDPBUSD.BCST 12(AX), Z17, Z3
	VPDPBUSD.BCST 16(AX), Z17, Z4
	VPDPBUSD.BCST 20(AX), Z17, Z5
	VPDPBUSD.BCST 24(AX), Z17, Z6
	VPDPBUSD.BCST 28(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(128)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	VPDPBUSD.BCST 16(AX), Z16, Z4
	VPDPBUSD.BCST 20(AX), Z16, Z5
	VPDPBUSD.BCST 24(AX), Z16, Z6
	VPDPBUSD.BCST 28(AX), Z16, Z7
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z0
	VPDPBUSD.BCST 4(AX), Z17, Z1
	VPDPBUSD.BCST 8(AX), Z17, Z2
	VPDPBUSD.BCST 12(AX), Z17, Z3
	VPDPBUSD.BCST 16(AX), Z17, Z4
	VPDPBUSD.BCST 20(AX), Z17, Z5
	VPDPBUSD.BCST 24(AX), Z17, Z6
	VPDPBUSD.BCST 28(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(192)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	VPDPBUSD.BCST 16(AX), Z16, Z4
	VPDPBUSD.BCST 20(AX), Z16, Z5
	VPDPBUSD.BCST 24(AX), Z16, Z6
	VPDPBUSD.BCST 28(AX), Z16, Z7
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z0
	VPDPBUSD.BCST 4(AX), Z17, Z1
	VPDPBUSD.BCST 8(AX), Z17, Z2
	VPDPBUSD.BCST 12(AX), Z17, Z3
	VPDPBUSD.BCST 16(AX), Z17, Z4
	VPDPBUSD.BCST 20(AX), Z17, Z5
	VPDPBUSD.BCST 24(AX), Z17, Z6
	VPDPBUSD.BCST 28(AX), Z17, Z7
	ADDQ R9, AX
	ADDQ $256, DX
	Q4SCALES
	VEPI(Z0, Z8, 0)
	VEPI(Z1, Z9, 4)
	VEPI(Z2, Z10, 8)
	VEPI(Z3, Z11, 12)
	VEPI(Z4, Z12, 16)
	VEPI(Z5, Z13, 20)
	VEPI(Z6, Z14, 24)
	VEPI(Z7, Z15, 28)
	ADDQ R12, BX
	DECQ R13
	JNZ q8block
	MOVQ DI, SI
	VMOVUPS Z8, (SI)
	ADDQ R8, SI
	VMOVUPS Z9, (SI)
	ADDQ R8, SI
	VMOVUPS Z10, (SI)
	ADDQ R8, SI
	VMOVUPS Z11, (SI)
	ADDQ R8, SI
	VMOVUPS Z12, (SI)
	ADDQ R8, SI
	VMOVUPS Z13, (SI)
	ADDQ R8, SI
	VMOVUPS Z14, (SI)
	ADDQ R8, SI
	VMOVUPS Z15, (SI)
	MOVQ CX, DX
	ADDQ $64, DI
	DECQ R14
	JNZ q8panel
	VZEROUPPER
	RET

// func gemmQ4x4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x4AVX512VNNI(SB), NOSPLIT, $0-80
	Q4SETUP
q4panel:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	Q4PANEL
q4block:
	VPBROADCASTD 0(BX)(R11*1), Z0
	VPBROADCASTD 4(BX)(R11*1), Z1
	VPBROADCASTD 8(BX)(R11*1), Z2
	VPBROADCASTD 12(BX)(R11*1), Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	Q4LOAD(0)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z4
	VPDPBUSD.BCST 4(AX), Z17, Z5
	VPDPBUSD.BCST 8(AX), Z17, Z6
	VPDPBUSD.BCST 12(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(64)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z4
	VPDPBUSD.BCST 4(AX), Z17, Z5
	VPDPBUSD.BCST 8(AX), Z17, Z6
	VPDPBUSD.BCST 12(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(128)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z4
	VPDPBUSD.BCST 4(AX), Z17, Z5
	VPDPBUSD.BCST 8(AX), Z17, Z6
	VPDPBUSD.BCST 12(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(192)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	VPDPBUSD.BCST 8(AX), Z16, Z2
	VPDPBUSD.BCST 12(AX), Z16, Z3
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z4
	VPDPBUSD.BCST 4(AX), Z17, Z5
	VPDPBUSD.BCST 8(AX), Z17, Z6
	VPDPBUSD.BCST 12(AX), Z17, Z7
	ADDQ R9, AX
	ADDQ $256, DX
	VPADDD Z4, Z0, Z0
	VPADDD Z5, Z1, Z1
	VPADDD Z6, Z2, Z2
	VPADDD Z7, Z3, Z3
	Q4SCALES
	VEPI(Z0, Z8, 0)
	VEPI(Z1, Z9, 4)
	VEPI(Z2, Z10, 8)
	VEPI(Z3, Z11, 12)
	ADDQ R12, BX
	DECQ R13
	JNZ q4block
	MOVQ DI, SI
	VMOVUPS Z8, (SI)
	ADDQ R8, SI
	VMOVUPS Z9, (SI)
	ADDQ R8, SI
	VMOVUPS Z10, (SI)
	ADDQ R8, SI
	VMOVUPS Z11, (SI)
	MOVQ CX, DX
	ADDQ $64, DI
	DECQ R14
	JNZ q4panel
	VZEROUPPER
	RET

// func gemmQ4x2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x2AVX512VNNI(SB), NOSPLIT, $0-80
	Q4SETUP
q2panel:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	Q4PANEL
q2block:
	VPBROADCASTD 0(BX)(R11*1), Z0
	VPBROADCASTD 4(BX)(R11*1), Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	Q4LOAD(0)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z2
	VPDPBUSD.BCST 4(AX), Z17, Z3
	ADDQ R9, AX
	Q4LOAD(64)
	VPDPBUSD.BCST 0(AX), Z16, Z4
	VPDPBUSD.BCST 4(AX), Z16, Z5
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z6
	VPDPBUSD.BCST 4(AX), Z17, Z7
	ADDQ R9, AX
	Q4LOAD(128)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	VPDPBUSD.BCST 4(AX), Z16, Z1
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z2
	VPDPBUSD.BCST 4(AX), Z17, Z3
	ADDQ R9, AX
	Q4LOAD(192)
	VPDPBUSD.BCST 0(AX), Z16, Z4
	VPDPBUSD.BCST 4(AX), Z16, Z5
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z6
	VPDPBUSD.BCST 4(AX), Z17, Z7
	ADDQ R9, AX
	ADDQ $256, DX
	VPADDD Z2, Z0, Z0
	VPADDD Z6, Z4, Z4
	VPADDD Z4, Z0, Z0
	VPADDD Z3, Z1, Z1
	VPADDD Z7, Z5, Z5
	VPADDD Z5, Z1, Z1
	Q4SCALES
	VEPI(Z0, Z8, 0)
	VEPI(Z1, Z9, 4)
	ADDQ R12, BX
	DECQ R13
	JNZ q2block
	MOVQ DI, SI
	VMOVUPS Z8, (SI)
	ADDQ R8, SI
	VMOVUPS Z9, (SI)
	MOVQ CX, DX
	ADDQ $64, DI
	DECQ R14
	JNZ q2panel
	VZEROUPPER
	RET

// func gemmQ4x1AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1AVX512VNNI(SB), NOSPLIT, $0-80
	Q4SETUP
q1panel:
	VPXORD Z8, Z8, Z8
	Q4PANEL
q1block:
	VPBROADCASTD 0(BX)(R11*1), Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	Q4LOAD(0)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z1
	ADDQ R9, AX
	Q4LOAD(64)
	VPDPBUSD.BCST 0(AX), Z16, Z2
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z3
	ADDQ R9, AX
	Q4LOAD(128)
	VPDPBUSD.BCST 0(AX), Z16, Z0
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z1
	ADDQ R9, AX
	Q4LOAD(192)
	VPDPBUSD.BCST 0(AX), Z16, Z2
	ADDQ R9, AX
	VPDPBUSD.BCST 0(AX), Z17, Z3
	ADDQ R9, AX
	ADDQ $256, DX
	VPADDD Z1, Z0, Z0
	VPADDD Z3, Z2, Z2
	VPADDD Z2, Z0, Z0
	Q4SCALES
	VEPI(Z0, Z8, 0)
	ADDQ R12, BX
	DECQ R13
	JNZ q1block
	MOVQ DI, SI
	VMOVUPS Z8, (SI)
	MOVQ CX, DX
	ADDQ $64, DI
	DECQ R14
	JNZ q1panel
	VZEROUPPER
	RET

// AVX2 level: the same packed layout, each 64-byte vector read as two ymm
// halves (rows 0-7, rows 8-15). VPSHUFB maps the codes to the signed
// levels; VPMADDUBSW(|level|, sign(x, level)) has |terms| ≤ 127·127·2 <
// 32768 and VPMADDWD by ones widens the pairs to int32: Σ level·qx
// directly. Y0/Y1 int32 sums (rows 0-7 / 8-15), Y4/Y5 fp32 accumulators,
// Y6/Y7 the broadcast activations (low / high nibbles' inputs), Y12 bytes
// 0x0f, Y13 the codebook in both lanes, Y14 int16 ones.

#define ASTEP(wv, xv, acc) \
	VPABSB wv, Y10; \
	VPSIGNB wv, xv, Y11; \
	VPMADDUBSW Y11, Y10, Y11; \
	VPMADDWD Y14, Y11, Y11; \
	VPADDD Y11, acc, acc

#define AHALF(off, acc) \
	VMOVDQU off(DX), Y8; \
	VPSRLW $4, Y8, Y9; \
	VPAND Y12, Y8, Y8; \
	VPAND Y12, Y9, Y9; \
	VPSHUFB Y8, Y13, Y8; \
	VPSHUFB Y9, Y13, Y9; \
	ASTEP(Y8, Y6, acc); \
	ASTEP(Y9, Y7, acc)

#define AVEC(off) \
	PREFETCHT0 off+2048(DX); \
	VPBROADCASTD (AX), Y6; \
	ADDQ R9, AX; \
	VPBROADCASTD (AX), Y7; \
	ADDQ R9, AX; \
	AHALF(off, Y0); \
	AHALF(off+32, Y1)

#define AEPI(acc, facc, off) \
	VPMOVZXWD off(CX), Y10; \
	VPSLLD $16, Y10, Y10; \
	VCVTDQ2PS acc, acc; \
	VBROADCASTSS (BX), Y11; \
	VMULPS Y11, acc, acc; \
	VMULPS Y10, acc, acc; \
	VADDPS acc, facc, facc

// func gemmQ4x1AVX2(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1AVX2(SB), NOSPLIT, $0-80
	MOVQ y+0(FP), DI
	MOVQ ldx+24(FP), R9
	MOVQ ldsc+40(FP), R12
	MOVQ w+48(FP), DX
	MOVQ np+64(FP), R14
	MOVL $0x0f0f0f0f, R10
	MOVQ R10, X12
	VPBROADCASTD X12, Y12
	MOVQ tab+72(FP), R10
	VBROADCASTI128 (R10), Y13
	VPCMPEQB Y14, Y14, Y14
	VPSRLW $15, Y14, Y14
a1panel:
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	Q4PANEL
a1block:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	AVEC(0)
	AVEC(64)
	AVEC(128)
	AVEC(192)
	ADDQ $256, DX
	AEPI(Y0, Y4, 0)
	AEPI(Y1, Y5, 16)
	ADDQ $32, CX
	ADDQ R12, BX
	DECQ R13
	JNZ a1block
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	MOVQ CX, DX
	ADDQ $64, DI
	DECQ R14
	JNZ a1panel
	VZEROUPPER
	RET

// The quad kernels: one or two input rows against four panels at once
// (four weight streams in flight, as the int8 quad kernels: one core reads
// DRAM faster with four streams than with one). SI is the panel size
// (nb·288 bytes); the quad's panels A, B, C, D start at DX, DX+SI, DX+2·SI
// and CX+2·SI (CX = DX+SI) and their scales (after each panel's codes) at
// R10, R10+SI, R10+2·SI and R8+2·SI (R8 = R10+SI). Each output gets the
// operations of the one-panel kernels in the same order (the int32 block
// sums are exact in any order), so the bits do not depend on the grouping.

// Q4QSETUP is Q4SETUP for the quad kernels: SI the panel size.
#define Q4QSETUP \
	Q4SETUP; \
	MOVQ nb+56(FP), SI; \
	IMULQ $288, SI

// Q4QUAD starts a quad at DX: CX, R10, R8 as above; AX, BX and R13 rewound.
#define Q4QUAD \
	LEAQ (DX)(SI*1), CX; \
	MOVQ nb+56(FP), R10; \
	SHLQ $8, R10; \
	ADDQ DX, R10; \
	LEAQ (R10)(SI*1), R8; \
	MOVQ x+16(FP), AX; \
	MOVQ sc+32(FP), BX; \
	MOVQ nb+56(FP), R13

// Q4QLOAD prefetches the quad's four code streams pf bytes ahead and loads
// their 64 bytes at off into Z16, Z21, Z22, Z23 (panels A-D).
#define Q4QLOAD(off, pf) \
	PREFETCHT0 pf(DX); \
	PREFETCHT0 pf(DX)(SI*1); \
	PREFETCHT0 pf(DX)(SI*2); \
	PREFETCHT0 pf(CX)(SI*2); \
	VMOVDQU64 off(DX), Z16; \
	VMOVDQU64 off(DX)(SI*1), Z21; \
	VMOVDQU64 off(DX)(SI*2), Z22; \
	VMOVDQU64 off(CX)(SI*2), Z23

// Q4QLOADNP is Q4QLOAD without the prefetches (pf unused), for the CPUs
// that stream four panels faster on their own (quadPrefetch).
#define Q4QLOADNP(off, pf) \
	VMOVDQU64 off(DX), Z16; \
	VMOVDQU64 off(DX)(SI*1), Z21; \
	VMOVDQU64 off(DX)(SI*2), Z22; \
	VMOVDQU64 off(CX)(SI*2), Z23

// Q4NIB turns the codes in v into the low nibbles' levels+128 (in v) and
// the high nibbles' (in h).
#define Q4NIB(v, h) \
	VPSRLW $4, v, h; \
	VPANDD Z19, v, v; \
	VPANDD Z19, h, h; \
	VPSHUFB v, Z20, v; \
	VPSHUFB h, Z20, h

// Q4QSCALES loads the block's bf16 weight scales of panels A-D into Z16,
// Z21, Z22, Z23 as fp32 and steps R10 and R8 past them.
#define Q4QSCALES \
	VPMOVZXWD (R10), Z16; \
	VPSLLD $16, Z16, Z16; \
	VPMOVZXWD (R10)(SI*1), Z21; \
	VPSLLD $16, Z21, Z21; \
	VPMOVZXWD (R10)(SI*2), Z22; \
	VPSLLD $16, Z22, Z22; \
	VPMOVZXWD (R8)(SI*2), Z23; \
	VPSLLD $16, Z23, Z23; \
	ADDQ $32, R10; \
	ADDQ $32, R8

// Q4QEPI is VEPI with the weight scales in ws.
#define Q4QEPI(acc, facc, off, ws) \
	VCVTDQ2PS acc, acc; \
	VMULPS.BCST off(BX), acc, acc; \
	VMULPS ws, acc, acc; \
	VADDPS acc, facc, facc

// Q4X1P4STEP is vector s (byte offset off) of a block for one input row:
// Z28 and Z29 the broadcast activations of its two groups of 4 inputs;
// Z0/Z1, Z2/Z3, Z4/Z5, Z6/Z7 panel A-D's low- and high-nibble sums.
#define Q4X1P4STEP(LD, off, pf) \
	LD(off, pf); \
	VPBROADCASTD (AX), Z28; \
	ADDQ R9, AX; \
	VPBROADCASTD (AX), Z29; \
	ADDQ R9, AX; \
	Q4NIB(Z16, Z17); \
	VPDPBUSD Z28, Z16, Z0; \
	VPDPBUSD Z29, Z17, Z1; \
	Q4NIB(Z21, Z24); \
	VPDPBUSD Z28, Z21, Z2; \
	VPDPBUSD Z29, Z24, Z3; \
	Q4NIB(Z22, Z25); \
	VPDPBUSD Z28, Z22, Z4; \
	VPDPBUSD Z29, Z25, Z5; \
	Q4NIB(Z23, Z26); \
	VPDPBUSD Z28, Z23, Z6; \
	VPDPBUSD Z29, Z26, Z7

// PFQ4 is how far ahead (bytes) the quad kernels prefetch each stream.
#define PFQ4 1024

// Q4X1P4BODY is gemmQ4x1P4AVX512VNNI with LD the load macro (Q4QLOAD or
// Q4QLOADNP). Z8-Z11 panel A-D's fp32 accumulators.
#define Q4X1P4BODY(LD) \
	Q4QSETUP; \
q1pquad: \
	Q4QUAD; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
q1pblock: \
	VPBROADCASTD 0(BX)(R11*1), Z0; \
	VMOVDQA64 Z0, Z2; \
	VMOVDQA64 Z0, Z4; \
	VMOVDQA64 Z0, Z6; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z7, Z7, Z7; \
	Q4X1P4STEP(LD, 0, 0+PFQ4); \
	Q4X1P4STEP(LD, 64, 64+PFQ4); \
	Q4X1P4STEP(LD, 128, 128+PFQ4); \
	Q4X1P4STEP(LD, 192, 192+PFQ4); \
	ADDQ $256, DX; \
	ADDQ $256, CX; \
	VPADDD Z1, Z0, Z0; \
	VPADDD Z3, Z2, Z2; \
	VPADDD Z5, Z4, Z4; \
	VPADDD Z7, Z6, Z6; \
	Q4QSCALES; \
	Q4QEPI(Z0, Z8, 0, Z16); \
	Q4QEPI(Z2, Z9, 0, Z21); \
	Q4QEPI(Z4, Z10, 0, Z22); \
	Q4QEPI(Z6, Z11, 0, Z23); \
	ADDQ R12, BX; \
	DECQ R13; \
	JNZ q1pblock; \
	VMOVUPS Z8, (DI); \
	VMOVUPS Z9, 64(DI); \
	VMOVUPS Z10, 128(DI); \
	VMOVUPS Z11, 192(DI); \
	ADDQ $256, DI; \
	LEAQ (R8)(SI*2), DX; \
	DECQ R14; \
	JNZ q1pquad; \
	VZEROUPPER; \
	RET

// func gemmQ4x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1P4AVX512VNNI(SB), NOSPLIT, $0-80
	Q4X1P4BODY(Q4QLOAD)

// func gemmQ4x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1P4NPAVX512VNNI(SB), NOSPLIT, $0-80
	Q4X1P4BODY(Q4QLOADNP)

// Q4X2P4STEP is vector s (byte offset off) of a block for two input rows:
// Z28/Z29 the low-nibble group's activations of rows 0 and 1, Z30/Z31
// the high-nibble group's; Z(2p+r) panel p's (A-D) sum for row r.
#define Q4X2P4STEP(LD, off, pf) \
	LD(off, pf); \
	VPBROADCASTD 0(AX), Z28; \
	VPBROADCASTD 4(AX), Z29; \
	ADDQ R9, AX; \
	VPBROADCASTD 0(AX), Z30; \
	VPBROADCASTD 4(AX), Z31; \
	ADDQ R9, AX; \
	Q4NIB(Z16, Z17); \
	VPDPBUSD Z28, Z16, Z0; \
	VPDPBUSD Z29, Z16, Z1; \
	VPDPBUSD Z30, Z17, Z0; \
	VPDPBUSD Z31, Z17, Z1; \
	Q4NIB(Z21, Z24); \
	VPDPBUSD Z28, Z21, Z2; \
	VPDPBUSD Z29, Z21, Z3; \
	VPDPBUSD Z30, Z24, Z2; \
	VPDPBUSD Z31, Z24, Z3; \
	Q4NIB(Z22, Z25); \
	VPDPBUSD Z28, Z22, Z4; \
	VPDPBUSD Z29, Z22, Z5; \
	VPDPBUSD Z30, Z25, Z4; \
	VPDPBUSD Z31, Z25, Z5; \
	Q4NIB(Z23, Z26); \
	VPDPBUSD Z28, Z23, Z6; \
	VPDPBUSD Z29, Z23, Z7; \
	VPDPBUSD Z30, Z26, Z6; \
	VPDPBUSD Z31, Z26, Z7

// Q4X2P4BODY is gemmQ4x2P4AVX512VNNI with LD the load macro. Z(8+2p+r)
// panel p's fp32 accumulator for row r; the second row's outputs are ldy
// bytes after the first's (read again at the store: R8 holds a scale
// pointer).
#define Q4X2P4BODY(LD) \
	Q4QSETUP; \
q2pquad: \
	Q4QUAD; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
q2pblock: \
	VPBROADCASTD 0(BX)(R11*1), Z0; \
	VPBROADCASTD 4(BX)(R11*1), Z1; \
	VMOVDQA64 Z0, Z2; \
	VMOVDQA64 Z1, Z3; \
	VMOVDQA64 Z0, Z4; \
	VMOVDQA64 Z1, Z5; \
	VMOVDQA64 Z0, Z6; \
	VMOVDQA64 Z1, Z7; \
	Q4X2P4STEP(LD, 0, 0+PFQ4); \
	Q4X2P4STEP(LD, 64, 64+PFQ4); \
	Q4X2P4STEP(LD, 128, 128+PFQ4); \
	Q4X2P4STEP(LD, 192, 192+PFQ4); \
	ADDQ $256, DX; \
	ADDQ $256, CX; \
	Q4QSCALES; \
	Q4QEPI(Z0, Z8, 0, Z16); \
	Q4QEPI(Z1, Z9, 4, Z16); \
	Q4QEPI(Z2, Z10, 0, Z21); \
	Q4QEPI(Z3, Z11, 4, Z21); \
	Q4QEPI(Z4, Z12, 0, Z22); \
	Q4QEPI(Z5, Z13, 4, Z22); \
	Q4QEPI(Z6, Z14, 0, Z23); \
	Q4QEPI(Z7, Z15, 4, Z23); \
	ADDQ R12, BX; \
	DECQ R13; \
	JNZ q2pblock; \
	MOVQ ldy+8(FP), R13; \
	VMOVUPS Z8, (DI); \
	VMOVUPS Z10, 64(DI); \
	VMOVUPS Z12, 128(DI); \
	VMOVUPS Z14, 192(DI); \
	VMOVUPS Z9, (DI)(R13*1); \
	VMOVUPS Z11, 64(DI)(R13*1); \
	VMOVUPS Z13, 128(DI)(R13*1); \
	VMOVUPS Z15, 192(DI)(R13*1); \
	ADDQ $256, DI; \
	LEAQ (R8)(SI*2), DX; \
	DECQ R14; \
	JNZ q2pquad; \
	VZEROUPPER; \
	RET

// func gemmQ4x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x2P4AVX512VNNI(SB), NOSPLIT, $0-80
	Q4X2P4BODY(Q4QLOAD)

// func gemmQ4x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x2P4NPAVX512VNNI(SB), NOSPLIT, $0-80
	Q4X2P4BODY(Q4QLOADNP)

// Q4X4P2STEP is vector s (byte offset off, prefetch offset pf) of a block
// for four input rows against a pair of panels: A's codes at DX, B's at
// DX+SI; Z(r) takes panel A and row r, Z(4+r) panel B and row r.
#define Q4X4P2STEP(off, pf) \
	PREFETCHT0 pf(DX); \
	PREFETCHT0 pf(DX)(SI*1); \
	VMOVDQU64 off(DX), Z16; \
	VMOVDQU64 off(DX)(SI*1), Z21; \
	Q4NIB(Z16, Z17); \
	Q4NIB(Z21, Z22); \
	VPDPBUSD.BCST 0(AX), Z16, Z0; \
	VPDPBUSD.BCST 4(AX), Z16, Z1; \
	VPDPBUSD.BCST 8(AX), Z16, Z2; \
	VPDPBUSD.BCST 12(AX), Z16, Z3; \
	VPDPBUSD.BCST 0(AX), Z21, Z4; \
	VPDPBUSD.BCST 4(AX), Z21, Z5; \
	VPDPBUSD.BCST 8(AX), Z21, Z6; \
	VPDPBUSD.BCST 12(AX), Z21, Z7; \
	ADDQ R9, AX; \
	VPDPBUSD.BCST 0(AX), Z17, Z0; \
	VPDPBUSD.BCST 4(AX), Z17, Z1; \
	VPDPBUSD.BCST 8(AX), Z17, Z2; \
	VPDPBUSD.BCST 12(AX), Z17, Z3; \
	VPDPBUSD.BCST 0(AX), Z22, Z4; \
	VPDPBUSD.BCST 4(AX), Z22, Z5; \
	VPDPBUSD.BCST 8(AX), Z22, Z6; \
	VPDPBUSD.BCST 12(AX), Z22, Z7; \
	ADDQ R9, AX

// func gemmQ4x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
//
// Four input rows against np pairs of panels, two weight streams in flight
// (as the int8 pair kernels): panels A and B of a pair at DX and DX+SI,
// their scales at R10 and R10+SI. Z(8+r) and Z(12+r) panel A's and B's
// fp32 accumulators for row r; Z18 and Z23 their block scales. Each output
// is computed exactly as by the x4 kernel.
TEXT ·gemmQ4x4P2AVX512VNNI(SB), NOSPLIT, $0-80
	Q4QSETUP
q4ppair:
	MOVQ nb+56(FP), R10
	SHLQ $8, R10
	ADDQ DX, R10
	MOVQ x+16(FP), AX
	MOVQ sc+32(FP), BX
	MOVQ nb+56(FP), R13
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
q4pblock:
	VPBROADCASTD 0(BX)(R11*1), Z0
	VPBROADCASTD 4(BX)(R11*1), Z1
	VPBROADCASTD 8(BX)(R11*1), Z2
	VPBROADCASTD 12(BX)(R11*1), Z3
	VMOVDQA64 Z0, Z4
	VMOVDQA64 Z1, Z5
	VMOVDQA64 Z2, Z6
	VMOVDQA64 Z3, Z7
	Q4X4P2STEP(0, 0+PFQ4)
	Q4X4P2STEP(64, 64+PFQ4)
	Q4X4P2STEP(128, 128+PFQ4)
	Q4X4P2STEP(192, 192+PFQ4)
	ADDQ $256, DX
	VPMOVZXWD (R10), Z18
	VPSLLD $16, Z18, Z18
	VPMOVZXWD (R10)(SI*1), Z23
	VPSLLD $16, Z23, Z23
	ADDQ $32, R10
	Q4QEPI(Z0, Z8, 0, Z18)
	Q4QEPI(Z1, Z9, 4, Z18)
	Q4QEPI(Z2, Z10, 8, Z18)
	Q4QEPI(Z3, Z11, 12, Z18)
	Q4QEPI(Z4, Z12, 0, Z23)
	Q4QEPI(Z5, Z13, 4, Z23)
	Q4QEPI(Z6, Z14, 8, Z23)
	Q4QEPI(Z7, Z15, 12, Z23)
	ADDQ R12, BX
	DECQ R13
	JNZ q4pblock
	MOVQ DI, R13
	VMOVUPS Z8, (R13)
	VMOVUPS Z12, 64(R13)
	ADDQ R8, R13
	VMOVUPS Z9, (R13)
	VMOVUPS Z13, 64(R13)
	ADDQ R8, R13
	VMOVUPS Z10, (R13)
	VMOVUPS Z14, 64(R13)
	ADDQ R8, R13
	VMOVUPS Z11, (R13)
	VMOVUPS Z15, 64(R13)
	ADDQ $128, DI
	LEAQ (R10)(SI*1), DX
	DECQ R14
	JNZ q4ppair
	VZEROUPPER
	RET
