//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"
#include "vec_exp_amd64.h"

#define OUT DI
#define GATE SI
#define UP BX
#define N CX

// func siluMulAVX512(out, gate, up *float32, n int)
//
// out[i] = (g / (1 + exp(-g))) * up[i], g = gate[i].
TEXT ·siluMulAVX512(SB), NOSPLIT, $0-32
	MOVQ   out+0(FP), OUT
	MOVQ   gate+8(FP), GATE
	MOVQ   up+16(FP), UP
	MOVQ   n+24(FP), N
	EXP_LOAD_Z
	VXORPS Z15, Z15, Z15 // 0

silu512_16:
	CMPQ    N, $16
	JL      silu512_tail
	VMOVUPS (GATE), Z4
	VSUBPS  Z4, Z15, Z0 // -g
	EXPZ(Z0, Z1, Z2, Z3)
	VADDPS  Z27, Z0, Z0 // 1 + exp(-g)
	VDIVPS  Z0, Z4, Z0  // g / (1 + exp(-g))
	VMULPS  (UP), Z0, Z0
	VMOVUPS Z0, (OUT)
	ADDQ    $64, GATE
	ADDQ    $64, UP
	ADDQ    $64, OUT
	SUBQ    $16, N
	JMP     silu512_16

silu512_tail:
	TESTQ     N, N
	JZ        silu512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (GATE), K1, Z4
	VMOVUPS.Z (UP), K1, Z5
	VSUBPS    Z4, Z15, Z0
	EXPZ(Z0, Z1, Z2, Z3)
	VADDPS    Z27, Z0, Z0
	VDIVPS    Z0, Z4, Z0
	VMULPS    Z5, Z0, Z0
	VMOVUPS   Z0, K1, (OUT)

silu512_done:
	VZEROUPPER
	RET

// func siluMulAVX2(out, gate, up *float32, n int)
//
// n is a multiple of 8. out[i] = (g / (1 + exp(-g))) * up[i].
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-32
	MOVQ   out+0(FP), OUT
	MOVQ   gate+8(FP), GATE
	MOVQ   up+16(FP), UP
	MOVQ   n+24(FP), N
	EXP_LOAD_Y
	VXORPS Y15, Y15, Y15 // 0

silu2_8:
	CMPQ    N, $8
	JL      silu2_done
	VMOVUPS (GATE), Y5
	VSUBPS  Y5, Y15, Y0
	EXPY(Y0, Y1, Y2, Y3, Y4)
	VADDPS  Y13, Y0, Y0
	VDIVPS  Y0, Y5, Y0
	VMULPS  (UP), Y0, Y0
	VMOVUPS Y0, (OUT)
	ADDQ    $32, GATE
	ADDQ    $32, UP
	ADDQ    $32, OUT
	SUBQ    $8, N
	JMP     silu2_8

silu2_done:
	VZEROUPPER
	RET
