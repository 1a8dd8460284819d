//go:build amd64 && gc && !purego

#include "textflag.h"

// SnakeBeta, 8 channels per step: z = x·a; k = round(z/π); r = z − k·π in
// three FMA steps (π = P1 + P2 + P3); s = r + r³·p(r²); out = x + s²·inv.
// Lanes with |z| > 65536 set a flag (the caller redoes the row).

#define X_INVPI Y15
#define X_NP1 Y14
#define X_NP2 Y13
#define X_NP3 Y12
#define X_C9 Y11
#define X_C7 Y10
#define X_C5 Y9
#define X_C3 Y8
#define X_ABS Y7
#define X_LIM Y6
#define X_BIG Y5

#define BCAST(bits, reg) MOVL $bits, AX; VMOVD AX, X0; VBROADCASTSS X0, reg

// func snakeAVX2(out, x, a, inv unsafe.Pointer, n int) (big bool)
TEXT ·snakeAVX2(SB), NOSPLIT, $0-41
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ a+16(FP), DX
	MOVQ inv+24(FP), CX
	MOVQ n+32(FP), BX
	BCAST(0x3ea2f983, X_INVPI)
	BCAST(0xc0490fdb, X_NP1)
	BCAST(0x33bbbd2e, X_NP2)
	BCAST(0x27800000, X_NP3)
	BCAST(0x362e7c8f, X_C9)
	BCAST(0xb94faffa, X_C7)
	BCAST(0x3c088735, X_C5)
	BCAST(0xbe2aaaa4, X_C3)
	BCAST(0x7fffffff, X_ABS)
	BCAST(0x47800000, X_LIM)
	VXORPS X_BIG, X_BIG, X_BIG
	SHRQ $3, BX
	JZ done
loop:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y1
	VANDPS X_ABS, Y1, Y2
	VCMPPS $0x1e, X_LIM, Y2, Y3
	VORPS Y3, X_BIG, X_BIG
	VMULPS X_INVPI, Y1, Y2
	VROUNDPS $0, Y2, Y2
	VFMADD231PS X_NP1, Y2, Y1
	VFMADD231PS X_NP2, Y2, Y1
	VFMADD231PS X_NP3, Y2, Y1
	VMULPS Y1, Y1, Y4
	VMOVAPS X_C9, Y2
	VFMADD213PS X_C7, Y4, Y2
	VFMADD213PS X_C5, Y4, Y2
	VFMADD213PS X_C3, Y4, Y2
	VMULPS Y4, Y1, Y4
	VFMADD213PS Y1, Y4, Y2
	VMULPS Y2, Y2, Y2
	VMOVUPS (CX), Y3
	VFMADD231PS Y3, Y2, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, CX
	ADDQ $32, DI
	DECQ BX
	JNZ loop
done:
	VMOVMSKPS X_BIG, AX
	TESTL AX, AX
	SETNE big+40(FP)
	VZEROUPPER
	RET

// SNAKEZ computes SnakeBeta on the 16 lanes of Z0 (x) with a from Z1's
// source A and inv from INV (memory operands, masked by K1), into Z0, the
// steps of snakeAVX2 one for one (the same bits per lane); lanes with
// |z| > 65536 set bits in K3.
#define SNAKEZ(A, INV) \
	VMOVUPS.Z   A, K1, Z1; \
	VMULPS      Z1, Z0, Z1; \
	VPANDD      Z_ABS, Z1, Z2; \
	VCMPPS      $0x1e, Z_LIM, Z2, K2; \
	KORW        K2, K3, K3; \
	VMULPS      Z_INVPI, Z1, Z2; \
	VRNDSCALEPS $0, Z2, Z2; \
	VFMADD231PS Z_NP1, Z2, Z1; \
	VFMADD231PS Z_NP2, Z2, Z1; \
	VFMADD231PS Z_NP3, Z2, Z1; \
	VMULPS      Z1, Z1, Z4; \
	VMOVAPS     Z_C9, Z2; \
	VFMADD213PS Z_C7, Z4, Z2; \
	VFMADD213PS Z_C5, Z4, Z2; \
	VFMADD213PS Z_C3, Z4, Z2; \
	VMULPS      Z4, Z1, Z4; \
	VFMADD213PS Z1, Z4, Z2; \
	VMULPS      Z2, Z2, Z2; \
	VMOVUPS.Z   INV, K1, Z3; \
	VFMADD231PS Z3, Z2, Z0

#define Z_INVPI Z31
#define Z_NP1 Z30
#define Z_NP2 Z29
#define Z_NP3 Z28
#define Z_C9 Z27
#define Z_C7 Z26
#define Z_C5 Z25
#define Z_C3 Z24
#define Z_ABS Z23
#define Z_LIM Z22

#define ZCAST(bits, reg) MOVL $bits, AX; VPBROADCASTD AX, reg

// func snakeAVX512(out, x, a, inv unsafe.Pointer, n int) (big bool)
TEXT ·snakeAVX512(SB), NOSPLIT, $0-41
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ a+16(FP), DX
	MOVQ inv+24(FP), CX
	MOVQ n+32(FP), BX
	ZCAST(0x3ea2f983, Z_INVPI)
	ZCAST(0xc0490fdb, Z_NP1)
	ZCAST(0x33bbbd2e, Z_NP2)
	ZCAST(0x27800000, Z_NP3)
	ZCAST(0x362e7c8f, Z_C9)
	ZCAST(0xb94faffa, Z_C7)
	ZCAST(0x3c088735, Z_C5)
	ZCAST(0xbe2aaaa4, Z_C3)
	ZCAST(0x7fffffff, Z_ABS)
	ZCAST(0x47800000, Z_LIM)
	KXORW K3, K3, K3
	MOVL  $0xffff, AX
	KMOVW AX, K1

snake512_16:
	CMPQ    BX, $16
	JL      snake512_tail
	VMOVUPS (SI), Z0
	SNAKEZ((DX), (CX))
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, CX
	ADDQ    $64, DI
	SUBQ    $16, BX
	JMP     snake512_16

snake512_tail:
	TESTQ     BX, BX
	JZ        snake512_done
	MOVL      $0xff, AX // n is a multiple of 8: one half-vector left
	KMOVW     AX, K1
	VMOVUPS.Z (SI), K1, Z0
	SNAKEZ((DX), (CX))
	VMOVUPS   Z0, K1, (DI)

snake512_done:
	KMOVW K3, AX
	TESTL AX, AX
	SETNE big+40(FP)
	VZEROUPPER
	RET
