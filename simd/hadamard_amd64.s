//go:build amd64 && gc && !purego

#include "textflag.h"

// Sign masks: hadSign<h> has the sign bit set in lane i when i&h != 0, the
// lanes that take the difference in a stage-h butterfly.
DATA hadSign1<>+0(SB)/4, $0
DATA hadSign1<>+4(SB)/4, $0x80000000
DATA hadSign1<>+8(SB)/4, $0
DATA hadSign1<>+12(SB)/4, $0x80000000
DATA hadSign1<>+16(SB)/4, $0
DATA hadSign1<>+20(SB)/4, $0x80000000
DATA hadSign1<>+24(SB)/4, $0
DATA hadSign1<>+28(SB)/4, $0x80000000
DATA hadSign1<>+32(SB)/4, $0
DATA hadSign1<>+36(SB)/4, $0x80000000
DATA hadSign1<>+40(SB)/4, $0
DATA hadSign1<>+44(SB)/4, $0x80000000
DATA hadSign1<>+48(SB)/4, $0
DATA hadSign1<>+52(SB)/4, $0x80000000
DATA hadSign1<>+56(SB)/4, $0
DATA hadSign1<>+60(SB)/4, $0x80000000
GLOBL hadSign1<>(SB), RODATA|NOPTR, $64

DATA hadSign2<>+0(SB)/4, $0
DATA hadSign2<>+4(SB)/4, $0
DATA hadSign2<>+8(SB)/4, $0x80000000
DATA hadSign2<>+12(SB)/4, $0x80000000
DATA hadSign2<>+16(SB)/4, $0
DATA hadSign2<>+20(SB)/4, $0
DATA hadSign2<>+24(SB)/4, $0x80000000
DATA hadSign2<>+28(SB)/4, $0x80000000
DATA hadSign2<>+32(SB)/4, $0
DATA hadSign2<>+36(SB)/4, $0
DATA hadSign2<>+40(SB)/4, $0x80000000
DATA hadSign2<>+44(SB)/4, $0x80000000
DATA hadSign2<>+48(SB)/4, $0
DATA hadSign2<>+52(SB)/4, $0
DATA hadSign2<>+56(SB)/4, $0x80000000
DATA hadSign2<>+60(SB)/4, $0x80000000
GLOBL hadSign2<>(SB), RODATA|NOPTR, $64

DATA hadSign4<>+0(SB)/4, $0
DATA hadSign4<>+4(SB)/4, $0
DATA hadSign4<>+8(SB)/4, $0
DATA hadSign4<>+12(SB)/4, $0
DATA hadSign4<>+16(SB)/4, $0x80000000
DATA hadSign4<>+20(SB)/4, $0x80000000
DATA hadSign4<>+24(SB)/4, $0x80000000
DATA hadSign4<>+28(SB)/4, $0x80000000
DATA hadSign4<>+32(SB)/4, $0
DATA hadSign4<>+36(SB)/4, $0
DATA hadSign4<>+40(SB)/4, $0
DATA hadSign4<>+44(SB)/4, $0
DATA hadSign4<>+48(SB)/4, $0x80000000
DATA hadSign4<>+52(SB)/4, $0x80000000
DATA hadSign4<>+56(SB)/4, $0x80000000
DATA hadSign4<>+60(SB)/4, $0x80000000
GLOBL hadSign4<>(SB), RODATA|NOPTR, $64

DATA hadSign8<>+0(SB)/4, $0
DATA hadSign8<>+4(SB)/4, $0
DATA hadSign8<>+8(SB)/4, $0
DATA hadSign8<>+12(SB)/4, $0
DATA hadSign8<>+16(SB)/4, $0
DATA hadSign8<>+20(SB)/4, $0
DATA hadSign8<>+24(SB)/4, $0
DATA hadSign8<>+28(SB)/4, $0
DATA hadSign8<>+32(SB)/4, $0x80000000
DATA hadSign8<>+36(SB)/4, $0x80000000
DATA hadSign8<>+40(SB)/4, $0x80000000
DATA hadSign8<>+44(SB)/4, $0x80000000
DATA hadSign8<>+48(SB)/4, $0x80000000
DATA hadSign8<>+52(SB)/4, $0x80000000
DATA hadSign8<>+56(SB)/4, $0x80000000
DATA hadSign8<>+60(SB)/4, $0x80000000
GLOBL hadSign8<>(SB), RODATA|NOPTR, $64

// INLANE does butterfly stage h inside register r, given t = r with every
// lane swapped with its partner lane (i^h) and m the stage's sign mask:
// lane i gets r[i]+r[i^h] when i&h == 0 and r[i^h]-r[i] otherwise, the
// same float32 sum or difference as the reference loop.
#define INLANE(r, t, m) \
	VXORPS m, r, r; \
	VADDPS r, t, r

// CROSS does a butterfly between registers: a, b = a+b, a-b (t scratch).
#define CROSS(a, b, t) \
	VADDPS  b, a, t; \
	VSUBPS  b, a, b; \
	VMOVAPS t, a

// func hadamard64AVX512(x *float32, blocks int, scale float32)
TEXT ·hadamard64AVX512(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), DI
	MOVQ         blocks+8(FP), CX
	VBROADCASTSS scale+16(FP), Z8
	VMOVUPS      hadSign1<>(SB), Z4
	VMOVUPS      hadSign2<>(SB), Z5
	VMOVUPS      hadSign4<>(SB), Z6
	VMOVUPS      hadSign8<>(SB), Z7

h512_loop:
	TESTQ   CX, CX
	JZ      h512_done
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3

	// h = 1: swap adjacent lanes.
	VPERMILPS $0xB1, Z0, Z9
	VPERMILPS $0xB1, Z1, Z10
	VPERMILPS $0xB1, Z2, Z11
	VPERMILPS $0xB1, Z3, Z12
	INLANE(Z0, Z9, Z4)
	INLANE(Z1, Z10, Z4)
	INLANE(Z2, Z11, Z4)
	INLANE(Z3, Z12, Z4)

	// h = 2: swap lane pairs.
	VPERMILPS $0x4E, Z0, Z9
	VPERMILPS $0x4E, Z1, Z10
	VPERMILPS $0x4E, Z2, Z11
	VPERMILPS $0x4E, Z3, Z12
	INLANE(Z0, Z9, Z5)
	INLANE(Z1, Z10, Z5)
	INLANE(Z2, Z11, Z5)
	INLANE(Z3, Z12, Z5)

	// h = 4: swap 128-bit lanes within each 256-bit half.
	VSHUFF32X4 $0xB1, Z0, Z0, Z9
	VSHUFF32X4 $0xB1, Z1, Z1, Z10
	VSHUFF32X4 $0xB1, Z2, Z2, Z11
	VSHUFF32X4 $0xB1, Z3, Z3, Z12
	INLANE(Z0, Z9, Z6)
	INLANE(Z1, Z10, Z6)
	INLANE(Z2, Z11, Z6)
	INLANE(Z3, Z12, Z6)

	// h = 8: swap 256-bit halves.
	VSHUFF32X4 $0x4E, Z0, Z0, Z9
	VSHUFF32X4 $0x4E, Z1, Z1, Z10
	VSHUFF32X4 $0x4E, Z2, Z2, Z11
	VSHUFF32X4 $0x4E, Z3, Z3, Z12
	INLANE(Z0, Z9, Z7)
	INLANE(Z1, Z10, Z7)
	INLANE(Z2, Z11, Z7)
	INLANE(Z3, Z12, Z7)

	// h = 16, 32: between registers.
	CROSS(Z0, Z1, Z9)
	CROSS(Z2, Z3, Z10)
	CROSS(Z0, Z2, Z9)
	CROSS(Z1, Z3, Z10)

	VMULPS  Z8, Z0, Z0
	VMULPS  Z8, Z1, Z1
	VMULPS  Z8, Z2, Z2
	VMULPS  Z8, Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ    $256, DI
	DECQ    CX
	JMP     h512_loop

h512_done:
	VZEROUPPER
	RET

// func hadamard64AVX2(x *float32, blocks int, scale float32)
TEXT ·hadamard64AVX2(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), DI
	MOVQ         blocks+8(FP), CX
	VBROADCASTSS scale+16(FP), Y11
	VMOVUPS      hadSign1<>(SB), Y8
	VMOVUPS      hadSign2<>(SB), Y9
	VMOVUPS      hadSign4<>(SB), Y10

h256_loop:
	TESTQ   CX, CX
	JZ      h256_done
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7

	// h = 1, 2: swaps within 128-bit lanes; h = 4: swap the halves.
	VPERMILPS $0xB1, Y0, Y12
	VPERMILPS $0xB1, Y1, Y13
	VPERMILPS $0xB1, Y2, Y14
	VPERMILPS $0xB1, Y3, Y15
	INLANE(Y0, Y12, Y8)
	INLANE(Y1, Y13, Y8)
	INLANE(Y2, Y14, Y8)
	INLANE(Y3, Y15, Y8)
	VPERMILPS $0xB1, Y4, Y12
	VPERMILPS $0xB1, Y5, Y13
	VPERMILPS $0xB1, Y6, Y14
	VPERMILPS $0xB1, Y7, Y15
	INLANE(Y4, Y12, Y8)
	INLANE(Y5, Y13, Y8)
	INLANE(Y6, Y14, Y8)
	INLANE(Y7, Y15, Y8)

	VPERMILPS $0x4E, Y0, Y12
	VPERMILPS $0x4E, Y1, Y13
	VPERMILPS $0x4E, Y2, Y14
	VPERMILPS $0x4E, Y3, Y15
	INLANE(Y0, Y12, Y9)
	INLANE(Y1, Y13, Y9)
	INLANE(Y2, Y14, Y9)
	INLANE(Y3, Y15, Y9)
	VPERMILPS $0x4E, Y4, Y12
	VPERMILPS $0x4E, Y5, Y13
	VPERMILPS $0x4E, Y6, Y14
	VPERMILPS $0x4E, Y7, Y15
	INLANE(Y4, Y12, Y9)
	INLANE(Y5, Y13, Y9)
	INLANE(Y6, Y14, Y9)
	INLANE(Y7, Y15, Y9)

	VPERM2F128 $0x01, Y0, Y0, Y12
	VPERM2F128 $0x01, Y1, Y1, Y13
	VPERM2F128 $0x01, Y2, Y2, Y14
	VPERM2F128 $0x01, Y3, Y3, Y15
	INLANE(Y0, Y12, Y10)
	INLANE(Y1, Y13, Y10)
	INLANE(Y2, Y14, Y10)
	INLANE(Y3, Y15, Y10)
	VPERM2F128 $0x01, Y4, Y4, Y12
	VPERM2F128 $0x01, Y5, Y5, Y13
	VPERM2F128 $0x01, Y6, Y6, Y14
	VPERM2F128 $0x01, Y7, Y7, Y15
	INLANE(Y4, Y12, Y10)
	INLANE(Y5, Y13, Y10)
	INLANE(Y6, Y14, Y10)
	INLANE(Y7, Y15, Y10)

	// h = 8, 16, 32: between registers.
	CROSS(Y0, Y1, Y12)
	CROSS(Y2, Y3, Y13)
	CROSS(Y4, Y5, Y14)
	CROSS(Y6, Y7, Y15)
	CROSS(Y0, Y2, Y12)
	CROSS(Y1, Y3, Y13)
	CROSS(Y4, Y6, Y14)
	CROSS(Y5, Y7, Y15)
	CROSS(Y0, Y4, Y12)
	CROSS(Y1, Y5, Y13)
	CROSS(Y2, Y6, Y14)
	CROSS(Y3, Y7, Y15)

	VMULPS  Y11, Y0, Y0
	VMULPS  Y11, Y1, Y1
	VMULPS  Y11, Y2, Y2
	VMULPS  Y11, Y3, Y3
	VMULPS  Y11, Y4, Y4
	VMULPS  Y11, Y5, Y5
	VMULPS  Y11, Y6, Y6
	VMULPS  Y11, Y7, Y7
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	DECQ    CX
	JMP     h256_loop

h256_done:
	VZEROUPPER
	RET
