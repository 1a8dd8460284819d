//go:build amd64 && gc && !purego

#include "textflag.h"
#include "attention_amd64.h"

#define S DI
#define Q SI
#define K BX
#define NP CX
#define ST DX
#define HD R8
#define ST3 R9
#define P0 R10
#define P4 R11
#define D R12

// attnScorePerm gathers the 8 dot products of the reduction tree (element 4k is
// position k, element 4k+1 position 4+k) into positions 0…7 (REDUCE8, in both
// score kernels).
DATA ·attnScorePerm+0(SB)/4, $0
DATA ·attnScorePerm+4(SB)/4, $4
DATA ·attnScorePerm+8(SB)/4, $8
DATA ·attnScorePerm+12(SB)/4, $12
DATA ·attnScorePerm+16(SB)/4, $1
DATA ·attnScorePerm+20(SB)/4, $5
DATA ·attnScorePerm+24(SB)/4, $9
DATA ·attnScorePerm+28(SB)/4, $13
DATA ·attnScorePerm+32(SB)/4, $0
DATA ·attnScorePerm+36(SB)/4, $0
DATA ·attnScorePerm+40(SB)/4, $0
DATA ·attnScorePerm+44(SB)/4, $0
DATA ·attnScorePerm+48(SB)/4, $0
DATA ·attnScorePerm+52(SB)/4, $0
DATA ·attnScorePerm+56(SB)/4, $0
DATA ·attnScorePerm+60(SB)/4, $0
GLOBL ·attnScorePerm(SB), RODATA|NOPTR, $64

// func attnScoresAVX512(s, q, k *float32, nPos, stride, headDim int, scale float32)
//
// Eight positions at a time: one accumulator (16 lanes) per position over
// headDim/16 fused multiply-adds, q loaded once per 16 floats for all eight
// rows. Each accumulator is reduced as (lanes 0-7 + lanes 8-15), then
// (4 + 4), then (e0+e1)+(e2+e3) — the remainder loop reduces a lone position
// in the same order, so a score does not depend on how nPos splits.
TEXT ·attnScoresAVX512(SB), NOSPLIT, $0-52
	MOVQ         s+0(FP), S
	MOVQ         q+8(FP), Q
	MOVQ         k+16(FP), K
	MOVQ         nPos+24(FP), NP
	MOVQ         stride+32(FP), ST
	MOVQ         headDim+40(FP), HD
	VBROADCASTSS scale+48(FP), Z15
	SHLQ         $2, ST
	SHLQ         $2, HD
	LEAQ         (ST)(ST*2), ST3
	VMOVDQU32    ·attnScorePerm(SB), Z16

sc512_8:
	CMPQ   NP, $8
	JL     sc512_1
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	MOVQ   K, P0
	LEAQ   (K)(ST*4), P4
	XORQ   D, D

sc512_8d:
	VMOVUPS     (Q)(D*1), Z8
	VFMADD231PS (P0), Z8, Z0
	VFMADD231PS (P0)(ST*1), Z8, Z1
	VFMADD231PS (P0)(ST*2), Z8, Z2
	VFMADD231PS (P0)(ST3*1), Z8, Z3
	VFMADD231PS (P4), Z8, Z4
	VFMADD231PS (P4)(ST*1), Z8, Z5
	VFMADD231PS (P4)(ST*2), Z8, Z6
	VFMADD231PS (P4)(ST3*1), Z8, Z7
	ADDQ        $64, P0
	ADDQ        $64, P4
	ADDQ        $64, D
	CMPQ        D, HD
	JL          sc512_8d

	REDUCE8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, (S))

	ADDQ $32, S
	LEAQ (K)(ST*8), K
	SUBQ $8, NP
	JMP  sc512_8

sc512_1:
	TESTQ  NP, NP
	JZ     sc512_done
	VXORPS Z0, Z0, Z0
	XORQ   D, D

sc512_1d:
	VMOVUPS     (Q)(D*1), Z8
	VFMADD231PS (K)(D*1), Z8, Z0
	ADDQ        $64, D
	CMPQ        D, HD
	JL          sc512_1d

	REDUCE1(Z0, Y0, X0, Y1, X1, (S))
	ADDQ          $4, S
	ADDQ          ST, K
	DECQ          NP
	JMP           sc512_1

sc512_done:
	VZEROUPPER
	RET

// func attnScoresAVX2(s, q, k *float32, nPos, stride, headDim int, scale float32)
//
// Eight positions at a time, one ymm accumulator each; reduced per 128-bit
// lane as (e0+e1)+(e2+e3), then low lane + high lane — the remainder loop
// uses the same order.
TEXT ·attnScoresAVX2(SB), NOSPLIT, $0-52
	MOVQ         s+0(FP), S
	MOVQ         q+8(FP), Q
	MOVQ         k+16(FP), K
	MOVQ         nPos+24(FP), NP
	MOVQ         stride+32(FP), ST
	MOVQ         headDim+40(FP), HD
	VBROADCASTSS scale+48(FP), Y15
	SHLQ         $2, ST
	SHLQ         $2, HD
	LEAQ         (ST)(ST*2), ST3

sc2_8:
	CMPQ   NP, $8
	JL     sc2_1
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   K, P0
	LEAQ   (K)(ST*4), P4
	XORQ   D, D

sc2_8d:
	VMOVUPS     (Q)(D*1), Y8
	VFMADD231PS (P0), Y8, Y0
	VFMADD231PS (P0)(ST*1), Y8, Y1
	VFMADD231PS (P0)(ST*2), Y8, Y2
	VFMADD231PS (P0)(ST3*1), Y8, Y3
	VFMADD231PS (P4), Y8, Y4
	VFMADD231PS (P4)(ST*1), Y8, Y5
	VFMADD231PS (P4)(ST*2), Y8, Y6
	VFMADD231PS (P4)(ST3*1), Y8, Y7
	ADDQ        $32, P0
	ADDQ        $32, P4
	ADDQ        $32, D
	CMPQ        D, HD
	JL          sc2_8d

	VHADDPS    Y1, Y0, Y0   // per lane [0:e0+e1, 0:e2+e3, 1:e0+e1, 1:e2+e3]
	VHADDPS    Y3, Y2, Y2
	VHADDPS    Y5, Y4, Y4
	VHADDPS    Y7, Y6, Y6
	VHADDPS    Y2, Y0, Y0   // per lane: positions 0 1 2 3
	VHADDPS    Y6, Y4, Y4   // per lane: positions 4 5 6 7
	VPERM2F128 $0x20, Y4, Y0, Y9
	VPERM2F128 $0x31, Y4, Y0, Y10
	VADDPS     Y10, Y9, Y9
	VMULPS     Y15, Y9, Y9
	VMOVUPS    Y9, (S)

	ADDQ $32, S
	LEAQ (K)(ST*8), K
	SUBQ $8, NP
	JMP  sc2_8

sc2_1:
	TESTQ  NP, NP
	JZ     sc2_done
	VXORPS Y0, Y0, Y0
	XORQ   D, D

sc2_1d:
	VMOVUPS     (Q)(D*1), Y8
	VFMADD231PS (K)(D*1), Y8, Y0
	ADDQ        $32, D
	CMPQ        D, HD
	JL          sc2_1d

	VHADDPS      Y0, Y0, Y0
	VHADDPS      Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSS       X1, X0, X0
	VMULSS       X15, X0, X0
	VMOVSS       X0, (S)
	ADDQ         $4, S
	ADDQ         ST, K
	DECQ         NP
	JMP          sc2_1

sc2_done:
	VZEROUPPER
	RET

#define OUT DI
#define PR SI
#define V BX
#define PP R10
#define VP R11
#define CNT R13
#define REM AX

// func attnValuesAVX512(out, p, v *float32, nPos, stride, headDim int)
//
// out[d] += Σ_p p[p]·v[p·stride+d]: column blocks of 128 floats (8
// accumulators), then 64, then 16; within a block the positions are added
// in order with one fused multiply-add each.
TEXT ·attnValuesAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), OUT
	MOVQ p+8(FP), PR
	MOVQ v+16(FP), V
	MOVQ nPos+24(FP), NP
	MOVQ stride+32(FP), ST
	MOVQ headDim+40(FP), HD
	SHLQ $2, ST
	SHLQ $2, HD
	XORQ D, D

av512_128:
	MOVQ   HD, REM
	SUBQ   D, REM
	CMPQ   REM, $512
	JL     av512_64
	LOAD8(OUT, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	MOVQ   PR, PP
	LEAQ   (V)(D*1), VP
	MOVQ   NP, CNT

av512_128p:
	VBROADCASTSS (PP), Z8
	VFMADD231PS  (VP), Z8, Z0
	VFMADD231PS  64(VP), Z8, Z1
	VFMADD231PS  128(VP), Z8, Z2
	VFMADD231PS  192(VP), Z8, Z3
	VFMADD231PS  256(VP), Z8, Z4
	VFMADD231PS  320(VP), Z8, Z5
	VFMADD231PS  384(VP), Z8, Z6
	VFMADD231PS  448(VP), Z8, Z7
	ADDQ         $4, PP
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          av512_128p
	STORE8(OUT, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ         $512, D
	JMP          av512_128

av512_64:
	CMPQ   REM, $256
	JL     av512_16
	VMOVUPS (OUT)(D*1), Z0
	VMOVUPS 64(OUT)(D*1), Z1
	VMOVUPS 128(OUT)(D*1), Z2
	VMOVUPS 192(OUT)(D*1), Z3
	MOVQ   PR, PP
	LEAQ   (V)(D*1), VP
	MOVQ   NP, CNT

av512_64p:
	VBROADCASTSS (PP), Z8
	VFMADD231PS  (VP), Z8, Z0
	VFMADD231PS  64(VP), Z8, Z1
	VFMADD231PS  128(VP), Z8, Z2
	VFMADD231PS  192(VP), Z8, Z3
	ADDQ         $4, PP
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          av512_64p
	VMOVUPS      Z0, (OUT)(D*1)
	VMOVUPS      Z1, 64(OUT)(D*1)
	VMOVUPS      Z2, 128(OUT)(D*1)
	VMOVUPS      Z3, 192(OUT)(D*1)
	ADDQ         $256, D
	MOVQ         HD, REM
	SUBQ         D, REM

av512_16:
	TESTQ  REM, REM
	JZ     av512_done
	VMOVUPS (OUT)(D*1), Z0
	MOVQ   PR, PP
	LEAQ   (V)(D*1), VP
	MOVQ   NP, CNT

av512_16p:
	VBROADCASTSS (PP), Z8
	VFMADD231PS  (VP), Z8, Z0
	ADDQ         $4, PP
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          av512_16p
	VMOVUPS      Z0, (OUT)(D*1)
	ADDQ         $64, D
	SUBQ         $64, REM
	JMP          av512_16

av512_done:
	VZEROUPPER
	RET

// func attnValuesAVX2(out, p, v *float32, nPos, stride, headDim int)
//
// out[d] += Σ_p p[p]·v[p·stride+d]: column blocks of 64 floats (8
// accumulators), then 8; positions in order.
TEXT ·attnValuesAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), OUT
	MOVQ p+8(FP), PR
	MOVQ v+16(FP), V
	MOVQ nPos+24(FP), NP
	MOVQ stride+32(FP), ST
	MOVQ headDim+40(FP), HD
	SHLQ $2, ST
	SHLQ $2, HD
	XORQ D, D

av2_64:
	MOVQ   HD, REM
	SUBQ   D, REM
	CMPQ   REM, $256
	JL     av2_8
	VMOVUPS (OUT)(D*1), Y0
	VMOVUPS 32(OUT)(D*1), Y1
	VMOVUPS 64(OUT)(D*1), Y2
	VMOVUPS 96(OUT)(D*1), Y3
	VMOVUPS 128(OUT)(D*1), Y4
	VMOVUPS 160(OUT)(D*1), Y5
	VMOVUPS 192(OUT)(D*1), Y6
	VMOVUPS 224(OUT)(D*1), Y7
	MOVQ   PR, PP
	LEAQ   (V)(D*1), VP
	MOVQ   NP, CNT

av2_64p:
	VBROADCASTSS (PP), Y8
	VFMADD231PS  (VP), Y8, Y0
	VFMADD231PS  32(VP), Y8, Y1
	VFMADD231PS  64(VP), Y8, Y2
	VFMADD231PS  96(VP), Y8, Y3
	VFMADD231PS  128(VP), Y8, Y4
	VFMADD231PS  160(VP), Y8, Y5
	VFMADD231PS  192(VP), Y8, Y6
	VFMADD231PS  224(VP), Y8, Y7
	ADDQ         $4, PP
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          av2_64p
	VMOVUPS      Y0, (OUT)(D*1)
	VMOVUPS      Y1, 32(OUT)(D*1)
	VMOVUPS      Y2, 64(OUT)(D*1)
	VMOVUPS      Y3, 96(OUT)(D*1)
	VMOVUPS      Y4, 128(OUT)(D*1)
	VMOVUPS      Y5, 160(OUT)(D*1)
	VMOVUPS      Y6, 192(OUT)(D*1)
	VMOVUPS      Y7, 224(OUT)(D*1)
	ADDQ         $256, D
	JMP          av2_64

av2_8:
	TESTQ  REM, REM
	JZ     av2_done
	VMOVUPS (OUT)(D*1), Y0
	MOVQ   PR, PP
	LEAQ   (V)(D*1), VP
	MOVQ   NP, CNT

av2_8p:
	VBROADCASTSS (PP), Y8
	VFMADD231PS  (VP), Y8, Y0
	ADDQ         $4, PP
	ADDQ         ST, VP
	DECQ         CNT
	JNZ          av2_8p
	VMOVUPS      Y0, (OUT)(D*1)
	ADDQ         $32, D
	SUBQ         $32, REM
	JMP          av2_8

av2_done:
	VZEROUPPER
	RET
