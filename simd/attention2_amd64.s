//go:build amd64 && gc && !purego

#include "textflag.h"
#include "attention_amd64.h"

// Two query heads of one KV group over the same K and V rows: each K or V
// vector is loaded once into a register and feeds both heads' fused
// multiply-adds. Per head the operations and their order are those of
// attnScoresAVX512 and attnValuesAVX512 (the same accumulators, the same
// reduction tree), so the bits are theirs.

#define OSA DI
#define OSB R13
#define Q SI
#define QB R14
#define K BX
#define NP CX
#define ST DX
#define HD R8
#define ST3 R9
#define P0 R10
#define P4 R11
#define D R12

// KSTEP loads the K vector at addr and adds its products with qa (Z8)
// and qb (Z25) to accumulators a and b.
#define KSTEP(addr, a, b) \
	VMOVUPS     addr, Z26     \
	VFMADD231PS Z26, Z8, a    \
	VFMADD231PS Z26, Z25, b

// func attnScores2AVX512(sa, sb, q, k *float32, nPos, stride, headDim int, scale float32)
//
// attnScoresAVX512 for the heads q[0:headDim] (scores to sa) and
// q[headDim:2·headDim] (to sb).
TEXT ·attnScores2AVX512(SB), NOSPLIT, $0-60
	MOVQ         sa+0(FP), OSA
	MOVQ         sb+8(FP), OSB
	MOVQ         q+16(FP), Q
	MOVQ         k+24(FP), K
	MOVQ         nPos+32(FP), NP
	MOVQ         stride+40(FP), ST
	MOVQ         headDim+48(FP), HD
	VBROADCASTSS scale+56(FP), Z15
	SHLQ         $2, ST
	SHLQ         $2, HD
	LEAQ         (Q)(HD*1), QB
	LEAQ         (ST)(ST*2), ST3
	VMOVDQU32    ·attnScorePerm(SB), Z16

s2_8:
	CMPQ   NP, $8
	JL     s2_1
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ZERO8(Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24)
	MOVQ   K, P0
	LEAQ   (K)(ST*4), P4
	XORQ   D, D

s2_8d:
	VMOVUPS (Q)(D*1), Z8
	VMOVUPS (QB)(D*1), Z25
	KSTEP((P0), Z0, Z17)
	KSTEP((P0)(ST*1), Z1, Z18)
	KSTEP((P0)(ST*2), Z2, Z19)
	KSTEP((P0)(ST3*1), Z3, Z20)
	KSTEP((P4), Z4, Z21)
	KSTEP((P4)(ST*1), Z5, Z22)
	KSTEP((P4)(ST*2), Z6, Z23)
	KSTEP((P4)(ST3*1), Z7, Z24)
	ADDQ    $64, P0
	ADDQ    $64, P4
	ADDQ    $64, D
	CMPQ    D, HD
	JL      s2_8d

	REDUCE8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, (OSA))
	REDUCE8(Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, (OSB))

	ADDQ $32, OSA
	ADDQ $32, OSB
	LEAQ (K)(ST*8), K
	SUBQ $8, NP
	JMP  s2_8

s2_1:
	TESTQ  NP, NP
	JZ     s2_done
	VXORPS Z0, Z0, Z0
	VXORPS Z2, Z2, Z2
	XORQ   D, D

s2_1d:
	VMOVUPS     (K)(D*1), Z26
	VMOVUPS     (Q)(D*1), Z8
	VMOVUPS     (QB)(D*1), Z25
	VFMADD231PS Z26, Z8, Z0
	VFMADD231PS Z26, Z25, Z2
	ADDQ        $64, D
	CMPQ        D, HD
	JL          s2_1d

	REDUCE1(Z0, Y0, X0, Y1, X1, (OSA))
	REDUCE1(Z2, Y2, X2, Y3, X3, (OSB))
	ADDQ $4, OSA
	ADDQ $4, OSB
	ADDQ ST, K
	DECQ NP
	JMP  s2_1

s2_done:
	VZEROUPPER
	RET

#define OA DI
#define OB R13
#define PA SI
#define PB R14
#define V BX
#define PPA R10
#define PPB R11
#define VP R15
#define CNT AX

// VSTEP loads the V vector at off(VP) and adds its products with the two
// heads' probabilities (Z8, Z9) to accumulators a and b.
#define VSTEP(off, a, b) \
	VMOVUPS     off(VP), Z24 \
	VFMADD231PS Z24, Z8, a   \
	VFMADD231PS Z24, Z9, b

// func attnValues2AVX512(oa, ob, pa, pb, v *float32, nPos, stride, headDim int)
//
// attnValuesAVX512 for two heads sharing v: oa += Σ_p pa[p]·v[p], ob +=
// Σ_p pb[p]·v[p]; headDim a multiple of 128, nPos ≥ 1.
TEXT ·attnValues2AVX512(SB), NOSPLIT, $0-64
	MOVQ oa+0(FP), OA
	MOVQ ob+8(FP), OB
	MOVQ pa+16(FP), PA
	MOVQ pb+24(FP), PB
	MOVQ v+32(FP), V
	MOVQ nPos+40(FP), NP
	MOVQ stride+48(FP), ST
	MOVQ headDim+56(FP), HD
	SHLQ $2, ST
	SHLQ $2, HD
	XORQ D, D

v2_128:
	CMPQ    D, HD
	JGE     v2_done
	LOAD8(OA, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	LOAD8(OB, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	MOVQ    PA, PPA
	MOVQ    PB, PPB
	LEAQ    (V)(D*1), VP
	MOVQ    NP, CNT

v2_128p:
	VBROADCASTSS (PPA), Z8
	VBROADCASTSS (PPB), Z9
	VSTEP(0, Z0, Z16)
	VSTEP(64, Z1, Z17)
	VSTEP(128, Z2, Z18)
	VSTEP(192, Z3, Z19)
	VSTEP(256, Z4, Z20)
	VSTEP(320, Z5, Z21)
	VSTEP(384, Z6, Z22)
	VSTEP(448, Z7, Z23)
	ADDQ         $4, PPA
	ADDQ         $4, PPB
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          v2_128p
	STORE8(OA, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	STORE8(OB, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	ADDQ         $512, D
	JMP          v2_128

v2_done:
	VZEROUPPER
	RET
