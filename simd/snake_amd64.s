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
