//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"

#define OUT DI
#define X SI
#define N CX
#define C BX

// GELUZ writes GELU(Z0) to Z1 with the steps of geluGeneric
// (gelu_generic.go), none fused, so the bits equal the generic level's.
// Registers: Z31 1, Z30 ½, Z29 0x7fffffff, Z28 the sign bit, Z27 127
// (int32); the other constants are broadcast from C (geluConsts).
#define GELUZ \
	VPANDD       Z29, Z0, Z1; \
	VMULPS.BCST  0(C), Z1, Z1; \
	VMINPS.BCST  4(C), Z1, Z1; \
	VMULPS       Z30, Z1, Z2; \
	VADDPS       Z31, Z2, Z2; \
	VDIVPS       Z2, Z31, Z2; \
	VBROADCASTSS 16(C), Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  20(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  24(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  28(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  32(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  36(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  40(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  44(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VADDPS.BCST  48(C), Z3, Z3; \
	VMULPS       Z2, Z3, Z3; \
	VSUBPS.BCST  52(C), Z3, Z3; \
	VMULPS       Z1, Z1, Z4; \
	VSUBPS       Z4, Z3, Z3; \
	VMAXPS.BCST  56(C), Z3, Z3; \
	VMULPS.BCST  60(C), Z3, Z4; \
	VRNDSCALEPS  $0, Z4, Z4; \
	VMULPS.BCST  64(C), Z4, Z5; \
	VSUBPS       Z5, Z3, Z5; \
	VMULPS.BCST  68(C), Z4, Z6; \
	VSUBPS       Z6, Z5, Z5; \
	VBROADCASTSS 72(C), Z6; \
	VMULPS       Z5, Z6, Z6; \
	VADDPS.BCST  76(C), Z6, Z6; \
	VMULPS       Z5, Z6, Z6; \
	VADDPS.BCST  80(C), Z6, Z6; \
	VMULPS       Z5, Z6, Z6; \
	VADDPS.BCST  84(C), Z6, Z6; \
	VMULPS       Z5, Z6, Z6; \
	VADDPS.BCST  88(C), Z6, Z6; \
	VMULPS       Z5, Z6, Z6; \
	VADDPS.BCST  92(C), Z6, Z6; \
	VMULPS       Z5, Z5, Z7; \
	VMULPS       Z7, Z6, Z6; \
	VADDPS       Z5, Z6, Z6; \
	VADDPS       Z31, Z6, Z6; \
	VCVTPS2DQ    Z4, Z7; \
	VPADDD       Z27, Z7, Z7; \
	VPSLLD       $23, Z7, Z7; \
	VMULPS       Z7, Z6, Z6; \
	VMULPS       Z6, Z2, Z6; \
	VMULPS       Z30, Z6, Z6; \
	VSUBPS       Z6, Z31, Z7; \
	VPTESTMD     Z28, Z0, K2; \
	VMOVAPS      Z6, K2, Z7; \
	VMULPS       Z7, Z0, Z1

// func geluAVX512(out, x *float32, n int, c *[24]float32)
TEXT ·geluAVX512(SB), NOSPLIT, $0-32
	MOVQ         out+0(FP), OUT
	MOVQ         x+8(FP), X
	MOVQ         n+16(FP), N
	MOVQ         c+24(FP), C
	VBROADCASTSS 12(C), Z31
	VBROADCASTSS 8(C), Z30
	MOVL         $0x7fffffff, AX
	VPBROADCASTD AX, Z29
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, Z28
	MOVL         $127, AX
	VPBROADCASTD AX, Z27

gelu512_16:
	CMPQ    N, $16
	JL      gelu512_tail
	VMOVUPS (X), Z0
	GELUZ
	VMOVUPS Z1, (OUT)
	ADDQ    $64, X
	ADDQ    $64, OUT
	SUBQ    $16, N
	JMP     gelu512_16

gelu512_tail:
	TESTQ     N, N
	JZ        gelu512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (X), K1, Z0
	GELUZ
	VMOVUPS   Z1, K1, (OUT)

gelu512_done:
	VZEROUPPER
	RET
