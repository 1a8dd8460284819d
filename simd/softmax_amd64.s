//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"
#include "vec_exp_amd64.h"

#define X SI
#define N CX

// func maxAVX512(x *float32, n int) float32
TEXT ·maxAVX512(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), X
	MOVQ         n+8(FP), N
	MOVL         $0xff800000, AX // -Inf
	VPBROADCASTD AX, Z0
	VMOVAPS      Z0, Z1
	VMOVAPS      Z0, Z2
	VMOVAPS      Z0, Z3

max512_64:
	CMPQ   N, $64
	JL     max512_16
	VMAXPS (X), Z0, Z0
	VMAXPS 64(X), Z1, Z1
	VMAXPS 128(X), Z2, Z2
	VMAXPS 192(X), Z3, Z3
	ADDQ   $256, X
	SUBQ   $64, N
	JMP    max512_64

max512_16:
	CMPQ   N, $16
	JL     max512_tail
	VMAXPS (X), Z0, Z0
	ADDQ   $64, X
	SUBQ   $16, N
	JMP    max512_16

max512_tail:
	TESTQ  N, N
	JZ     max512_reduce
	TAILMASK(AX, K1)
	VMAXPS (X), Z1, K1, Z1

max512_reduce:
	VMAXPS        Z1, Z0, Z0
	VMAXPS        Z3, Z2, Z2
	VMAXPS        Z2, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VMAXPS        X1, X0, X0
	VMOVHLPS      X0, X0, X1
	VMAXPS        X1, X0, X0
	VMOVSHDUP     X0, X1
	VMAXSS        X1, X0, X0
	VMOVSS        X0, ret+16(FP)
	VZEROUPPER
	RET

// func maxAVX2(x *float32, n int) float32
TEXT ·maxAVX2(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), X
	MOVQ         n+8(FP), N
	VBROADCASTSS negInf<>(SB), Y0
	VMOVAPS      Y0, Y1
	VMOVAPS      Y0, Y2
	VMOVAPS      Y0, Y3

max2_32:
	CMPQ   N, $32
	JL     max2_8
	VMAXPS (X), Y0, Y0
	VMAXPS 32(X), Y1, Y1
	VMAXPS 64(X), Y2, Y2
	VMAXPS 96(X), Y3, Y3
	ADDQ   $128, X
	SUBQ   $32, N
	JMP    max2_32

max2_8:
	CMPQ   N, $8
	JL     max2_reduce
	VMAXPS (X), Y0, Y0
	ADDQ   $32, X
	SUBQ   $8, N
	JMP    max2_8

max2_reduce:
	VMAXPS       Y1, Y0, Y0
	VMAXPS       Y3, Y2, Y2
	VMAXPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VMAXPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VMAXSS       X1, X0, X0

max2_1:
	TESTQ  N, N
	JZ     max2_done
	VMAXSS (X), X0, X0
	ADDQ   $4, X
	DECQ   N
	JMP    max2_1

max2_done:
	VMOVSS X0, ret+16(FP)
	VZEROUPPER
	RET

DATA negInf<>+0(SB)/4, $0xff800000
GLOBL negInf<>(SB), RODATA|NOPTR, $4

// func expSubAVX512(x *float32, n int, m float32) float32
//
// x[i] = exp(x[i] - m); returns Σ x[i] over 16 lane sums added pairwise.
TEXT ·expSubAVX512(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), X
	MOVQ         n+8(FP), N
	VBROADCASTSS m+16(FP), Z8
	EXP_LOAD_Z
	VXORPS       Z9, Z9, Z9 // sum

es512_16:
	CMPQ    N, $16
	JL      es512_tail
	VMOVUPS (X), Z0
	VSUBPS  Z8, Z0, Z0
	EXPZ(Z0, Z1, Z2, Z3)
	VMOVUPS Z0, (X)
	VADDPS  Z0, Z9, Z9
	ADDQ    $64, X
	SUBQ    $16, N
	JMP     es512_16

es512_tail:
	TESTQ     N, N
	JZ        es512_reduce
	TAILMASK(AX, K1)
	VMOVUPS.Z (X), K1, Z0
	VSUBPS    Z8, Z0, Z0
	EXPZ(Z0, Z1, Z2, Z3)
	VMOVUPS   Z0, K1, (X)
	VADDPS    Z0, Z9, K1, Z9

es512_reduce:
	VMOVAPS Z9, Z0
	HSUMZ(Z0, Y0, X0, Y1, X1)
	VMOVSS  X0, ret+24(FP)
	VZEROUPPER
	RET

// func expSubAVX2(x *float32, n int, m float32) float32
//
// n is a multiple of 8. x[i] = exp(x[i] - m); returns Σ x[i] over 8 lane
// sums added pairwise.
TEXT ·expSubAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), X
	MOVQ         n+8(FP), N
	VBROADCASTSS m+16(FP), Y6
	EXP_LOAD_Y
	VXORPS       Y7, Y7, Y7 // sum

es2_8:
	CMPQ    N, $8
	JL      es2_reduce
	VMOVUPS (X), Y0
	VSUBPS  Y6, Y0, Y0
	EXPY(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y0, (X)
	VADDPS  Y0, Y7, Y7
	ADDQ    $32, X
	SUBQ    $8, N
	JMP     es2_8

es2_reduce:
	VMOVAPS Y7, Y0
	HSUMY(Y0, X0, X1)
	VMOVSS  X0, ret+24(FP)
	VZEROUPPER
	RET
