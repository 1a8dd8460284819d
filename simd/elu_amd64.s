//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"

#define OUT DI
#define X SI
#define N CX
#define C BX

// ELUZ writes ELU(Z0) to Z1 with the steps of expm1Neg (elu_generic.go):
// no fused multiply-add, so the bits equal the generic level's. Constants:
// Z18 sign bit, Z19 zero, Z20 −87, Z21 log₂e, Z22 ln2Hi, Z23 ln2Lo,
// Z24..Z29 c0..c5, Z30 127 (int32), Z31 1.
#define ELUZ \
	VMINPS      Z19, Z0, Z2; \
	VMAXPS      Z20, Z2, Z2; \
	VMULPS      Z21, Z2, Z3; \
	VRNDSCALEPS $0, Z3, Z3; \
	VMULPS      Z22, Z3, Z4; \
	VSUBPS      Z4, Z2, Z4; \
	VMULPS      Z23, Z3, Z5; \
	VSUBPS      Z5, Z4, Z4; \
	VMULPS      Z24, Z4, Z5; \
	VADDPS      Z25, Z5, Z5; \
	VMULPS      Z4, Z5, Z5; \
	VADDPS      Z26, Z5, Z5; \
	VMULPS      Z4, Z5, Z5; \
	VADDPS      Z27, Z5, Z5; \
	VMULPS      Z4, Z5, Z5; \
	VADDPS      Z28, Z5, Z5; \
	VMULPS      Z4, Z5, Z5; \
	VADDPS      Z29, Z5, Z5; \
	VMULPS      Z4, Z4, Z6; \
	VMULPS      Z6, Z5, Z5; \
	VADDPS      Z4, Z5, Z5; \
	VCVTPS2DQ   Z3, Z6; \
	VPADDD      Z30, Z6, Z6; \
	VPSLLD      $23, Z6, Z6; \
	VMULPS      Z6, Z5, Z5; \
	VSUBPS      Z31, Z6, Z7; \
	VADDPS      Z7, Z5, Z5; \
	VPTESTMD    Z18, Z0, K2; \
	VMOVAPS     Z0, Z1; \
	VMOVAPS     Z5, K2, Z1

// func eluAVX512(out, x *float32, n int, c *[12]float32)
TEXT ·eluAVX512(SB), NOSPLIT, $0-32
	MOVQ         out+0(FP), OUT
	MOVQ         x+8(FP), X
	MOVQ         n+16(FP), N
	MOVQ         c+24(FP), C
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, Z18
	VXORPS       Z19, Z19, Z19
	VBROADCASTSS 0(C), Z20
	VBROADCASTSS 4(C), Z21
	VBROADCASTSS 8(C), Z22
	VBROADCASTSS 12(C), Z23
	VBROADCASTSS 16(C), Z24
	VBROADCASTSS 20(C), Z25
	VBROADCASTSS 24(C), Z26
	VBROADCASTSS 28(C), Z27
	VBROADCASTSS 32(C), Z28
	VBROADCASTSS 36(C), Z29
	MOVL         $127, AX
	VPBROADCASTD AX, Z30
	VBROADCASTSS 40(C), Z31

elu512_16:
	CMPQ    N, $16
	JL      elu512_tail
	VMOVUPS (X), Z0
	ELUZ
	VMOVUPS Z1, (OUT)
	ADDQ    $64, X
	ADDQ    $64, OUT
	SUBQ    $16, N
	JMP     elu512_16

elu512_tail:
	TESTQ     N, N
	JZ        elu512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (X), K1, Z0
	ELUZ
	VMOVUPS   Z1, K1, (OUT)

elu512_done:
	VZEROUPPER
	RET
