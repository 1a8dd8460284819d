//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"
#include "vec_exp_amd64.h"

// func statsColsAVX512(l, x *float32, m, stride, ncols int, s *[48]float64)
//
// For ncols (1…16) columns of m rows (row stride stride floats) of logits
// l and values x: mx = the column maxima; p = exp(l − mx) in float32
// (EXPZ); s[0:16] = Σ p, s[16:32] = Σ p·x, s[32:48] = Σ p·x·x in float64
// (p and x widened exactly; p·x exact in float64), rows in order.
TEXT ·statsColsAVX512(SB), NOSPLIT, $0-48
	MOVQ l+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ m+16(FP), R8
	MOVQ stride+24(FP), R9
	SHLQ $2, R9
	MOVQ ncols+32(FP), CX
	MOVQ s+40(FP), BX
	TAILMASK(AX, K1)

	// The maxima.
	MOVQ      SI, R10
	MOVQ      R8, R11
	VMOVUPS.Z (R10), K1, Z5
	ADDQ      R9, R10
	DECQ      R11

stats_max:
	TESTQ     R11, R11
	JZ        stats_max_done
	VMOVUPS.Z (R10), K1, Z0
	VMAXPS    Z0, Z5, Z5
	ADDQ      R9, R10
	DECQ      R11
	JMP       stats_max

stats_max_done:
	EXP_LOAD_Z
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	MOVQ   SI, R10
	MOVQ   DI, R12
	MOVQ   R8, R11

stats_sum:
	VMOVUPS.Z     (R10), K1, Z0
	VSUBPS        Z5, Z0, Z0
	EXPZ(Z0, Z2, Z3, Z4)
	VMOVUPS.Z     (R12), K1, Z1
	VCVTPS2PD     Y0, Z12
	VEXTRACTF64X4 $1, Z0, Y13
	VCVTPS2PD     Y13, Z13
	VCVTPS2PD     Y1, Z14
	VEXTRACTF64X4 $1, Z1, Y15
	VCVTPS2PD     Y15, Z15
	VADDPD        Z12, Z6, Z6
	VADDPD        Z13, Z7, Z7
	VMULPD        Z14, Z12, Z12
	VMULPD        Z15, Z13, Z13
	VADDPD        Z12, Z8, Z8
	VADDPD        Z13, Z9, Z9
	VFMADD231PD   Z14, Z12, Z10
	VFMADD231PD   Z15, Z13, Z11
	ADDQ          R9, R10
	ADDQ          R9, R12
	DECQ          R11
	JNZ           stats_sum

	VMOVUPD Z6, 0(BX)
	VMOVUPD Z7, 64(BX)
	VMOVUPD Z8, 128(BX)
	VMOVUPD Z9, 192(BX)
	VMOVUPD Z10, 256(BX)
	VMOVUPD Z11, 320(BX)
	VZEROUPPER
	RET
