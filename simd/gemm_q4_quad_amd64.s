//go:build amd64 && gc && !purego

#include "textflag.h"
#include "gemm_block_amd64.h"
#include "gemm_q4_amd64.h"

// The quad kernels: one or two input rows against four panels at once
// (four weight streams in flight, as the int8 quad kernels: one core reads
// DRAM faster with four streams than with one). SI is the panel size
// (nb·288 bytes); the quad's panels A, B, C, D start at DX, DX+SI, DX+2·SI
// and CX+2·SI (CX = DX+SI) and their scales (after each panel's codes) at
// R10, R10+SI, R10+2·SI and R8+2·SI (R8 = R10+SI). Each output gets the
// operations of the one-panel kernels in the same order (the int32 block
// sums are exact in any order), so the bits do not depend on the grouping.

// Q4QSETUP is Q4SETUP for the quad kernels: SI the panel size.
#define Q4QSETUP \
	Q4SETUP; \
	MOVQ nb+56(FP), SI; \
	IMULQ $288, SI

// Q4QUAD starts a quad at DX: CX, R10, R8 as above; AX, BX and R13 rewound.
#define Q4QUAD \
	LEAQ (DX)(SI*1), CX; \
	MOVQ nb+56(FP), R10; \
	SHLQ $8, R10; \
	ADDQ DX, R10; \
	LEAQ (R10)(SI*1), R8; \
	MOVQ x+16(FP), AX; \
	MOVQ sc+32(FP), BX; \
	MOVQ nb+56(FP), R13

// Q4NIB turns the codes in v into the low nibbles' levels+128 (in v) and
// the high nibbles' (in h).
#define Q4NIB(v, h) \
	VPSRLW $4, v, h; \
	VPANDD Z19, v, v; \
	VPANDD Z19, h, h; \
	VPSHUFB v, Z20, v; \
	VPSHUFB h, Z20, h

// Q4X1P4STEP is vector s (byte offset off) of a block for one input row:
// Z28 and Z29 the broadcast activations of its two groups of 4 inputs;
// Z0/Z1, Z2/Z3, Z4/Z5, Z6/Z7 panel A-D's low- and high-nibble sums.
#define Q4X1P4STEP(LD, off, pf) \
	LD(off, pf, Z16, Z21, Z22, Z23); \
	VPBROADCASTD (AX), Z28; \
	ADDQ R9, AX; \
	VPBROADCASTD (AX), Z29; \
	ADDQ R9, AX; \
	Q4NIB(Z16, Z17); \
	VPDPBUSD Z28, Z16, Z0; \
	VPDPBUSD Z29, Z17, Z1; \
	Q4NIB(Z21, Z24); \
	VPDPBUSD Z28, Z21, Z2; \
	VPDPBUSD Z29, Z24, Z3; \
	Q4NIB(Z22, Z25); \
	VPDPBUSD Z28, Z22, Z4; \
	VPDPBUSD Z29, Z25, Z5; \
	Q4NIB(Z23, Z26); \
	VPDPBUSD Z28, Z23, Z6; \
	VPDPBUSD Z29, Z26, Z7

// Q4X1P4BODY is gemmQ4x1P4AVX512VNNI with LD the load macro (QUADLOAD or
// QUADLOADNP). Z8-Z11 panel A-D's fp32 accumulators.
#define Q4X1P4BODY(LD) \
	Q4QSETUP; \
q1pquad: \
	Q4QUAD; \
	ZACC4; \
q1pblock: \
	QUAD1INIT; \
	Q4X1P4STEP(LD, 0, 0+PFD4); \
	Q4X1P4STEP(LD, 64, 64+PFD4); \
	Q4X1P4STEP(LD, 128, 128+PFD4); \
	Q4X1P4STEP(LD, 192, 192+PFD4); \
	ADDQ $256, DX; \
	ADDQ $256, CX; \
	QUAD1SUMS; \
	QUADSCALES(R10, R8, Z16, Z21, Z22, Z23); \
	QUAD1EPI(Z16, Z21, Z22, Z23); \
	ADDQ R12, BX; \
	DECQ R13; \
	JNZ q1pblock; \
	QUAD1STORE; \
	LEAQ (R8)(SI*2), DX; \
	DECQ R14; \
	JNZ q1pquad; \
	VZEROUPPER; \
	RET

// func gemmQ4x1P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1P4AVX512VNNI(SB), NOSPLIT, $0-80
	Q4X1P4BODY(QUADLOAD)

// func gemmQ4x1P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x1P4NPAVX512VNNI(SB), NOSPLIT, $0-80
	Q4X1P4BODY(QUADLOADNP)

// Q4X2P4STEP is vector s (byte offset off) of a block for two input rows:
// Z28/Z29 the low-nibble group's activations of rows 0 and 1, Z30/Z31
// the high-nibble group's; Z(2p+r) panel p's (A-D) sum for row r.
#define Q4X2P4STEP(LD, off, pf) \
	LD(off, pf, Z16, Z21, Z22, Z23); \
	VPBROADCASTD 0(AX), Z28; \
	VPBROADCASTD 4(AX), Z29; \
	ADDQ R9, AX; \
	VPBROADCASTD 0(AX), Z30; \
	VPBROADCASTD 4(AX), Z31; \
	ADDQ R9, AX; \
	Q4NIB(Z16, Z17); \
	VPDPBUSD Z28, Z16, Z0; \
	VPDPBUSD Z29, Z16, Z1; \
	VPDPBUSD Z30, Z17, Z0; \
	VPDPBUSD Z31, Z17, Z1; \
	Q4NIB(Z21, Z24); \
	VPDPBUSD Z28, Z21, Z2; \
	VPDPBUSD Z29, Z21, Z3; \
	VPDPBUSD Z30, Z24, Z2; \
	VPDPBUSD Z31, Z24, Z3; \
	Q4NIB(Z22, Z25); \
	VPDPBUSD Z28, Z22, Z4; \
	VPDPBUSD Z29, Z22, Z5; \
	VPDPBUSD Z30, Z25, Z4; \
	VPDPBUSD Z31, Z25, Z5; \
	Q4NIB(Z23, Z26); \
	VPDPBUSD Z28, Z23, Z6; \
	VPDPBUSD Z29, Z23, Z7; \
	VPDPBUSD Z30, Z26, Z6; \
	VPDPBUSD Z31, Z26, Z7

// Q4X2P4BODY is gemmQ4x2P4AVX512VNNI with LD the load macro. Z(8+2p+r)
// panel p's fp32 accumulator for row r; the second row's outputs are ldy
// bytes after the first's (read again at the store: R8 holds a scale
// pointer).
#define Q4X2P4BODY(LD) \
	Q4QSETUP; \
q2pquad: \
	Q4QUAD; \
	ZACC8; \
q2pblock: \
	QUAD2INIT; \
	Q4X2P4STEP(LD, 0, 0+PFD4); \
	Q4X2P4STEP(LD, 64, 64+PFD4); \
	Q4X2P4STEP(LD, 128, 128+PFD4); \
	Q4X2P4STEP(LD, 192, 192+PFD4); \
	ADDQ $256, DX; \
	ADDQ $256, CX; \
	QUADSCALES(R10, R8, Z16, Z21, Z22, Z23); \
	QUAD2EPI(Z16, Z21, Z22, Z23); \
	ADDQ R12, BX; \
	DECQ R13; \
	JNZ q2pblock; \
	MOVQ ldy+8(FP), R13; \
	QUAD2STORE(R13); \
	LEAQ (R8)(SI*2), DX; \
	DECQ R14; \
	JNZ q2pquad; \
	VZEROUPPER; \
	RET

// func gemmQ4x2P4AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x2P4AVX512VNNI(SB), NOSPLIT, $0-80
	Q4X2P4BODY(QUADLOAD)

// func gemmQ4x2P4NPAVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
TEXT ·gemmQ4x2P4NPAVX512VNNI(SB), NOSPLIT, $0-80
	Q4X2P4BODY(QUADLOADNP)

// Q4X4P2STEP is vector s (byte offset off, prefetch offset pf) of a block
// for four input rows against a pair of panels: A's codes at DX, B's at
// DX+SI; Z(r) takes panel A and row r, Z(4+r) panel B and row r.
#define Q4X4P2STEP(off, pf) \
	PREFETCHT0 pf(DX); \
	PREFETCHT0 pf(DX)(SI*1); \
	VMOVDQU64 off(DX), Z16; \
	VMOVDQU64 off(DX)(SI*1), Z21; \
	Q4NIB(Z16, Z17); \
	Q4NIB(Z21, Z22); \
	VPDPBUSD.BCST 0(AX), Z16, Z0; \
	VPDPBUSD.BCST 4(AX), Z16, Z1; \
	VPDPBUSD.BCST 8(AX), Z16, Z2; \
	VPDPBUSD.BCST 12(AX), Z16, Z3; \
	VPDPBUSD.BCST 0(AX), Z21, Z4; \
	VPDPBUSD.BCST 4(AX), Z21, Z5; \
	VPDPBUSD.BCST 8(AX), Z21, Z6; \
	VPDPBUSD.BCST 12(AX), Z21, Z7; \
	ADDQ R9, AX; \
	VPDPBUSD.BCST 0(AX), Z17, Z0; \
	VPDPBUSD.BCST 4(AX), Z17, Z1; \
	VPDPBUSD.BCST 8(AX), Z17, Z2; \
	VPDPBUSD.BCST 12(AX), Z17, Z3; \
	VPDPBUSD.BCST 0(AX), Z22, Z4; \
	VPDPBUSD.BCST 4(AX), Z22, Z5; \
	VPDPBUSD.BCST 8(AX), Z22, Z6; \
	VPDPBUSD.BCST 12(AX), Z22, Z7; \
	ADDQ R9, AX

// func gemmQ4x4P2AVX512VNNI(y unsafe.Pointer, ldy int, x unsafe.Pointer, ldx int, sc unsafe.Pointer, ldsc int, w unsafe.Pointer, nb int, np int, tab unsafe.Pointer)
//
// Four input rows against np pairs of panels, two weight streams in flight
// (as the int8 pair kernels): panels A and B of a pair at DX and DX+SI,
// their scales at R10 and R10+SI. Z(8+r) and Z(12+r) panel A's and B's
// fp32 accumulators for row r; Z18 and Z23 their block scales. Each output
// is computed exactly as by the x4 kernel.
TEXT ·gemmQ4x4P2AVX512VNNI(SB), NOSPLIT, $0-80
	Q4QSETUP
q4ppair:
	MOVQ nb+56(FP), R10
	SHLQ $8, R10
	ADDQ DX, R10
	MOVQ x+16(FP), AX
	MOVQ sc+32(FP), BX
	MOVQ nb+56(FP), R13
	ZACC8
q4pblock:
	PAIR4INIT
	Q4X4P2STEP(0, 0+PFD4)
	Q4X4P2STEP(64, 64+PFD4)
	Q4X4P2STEP(128, 128+PFD4)
	Q4X4P2STEP(192, 192+PFD4)
	ADDQ $256, DX
	WSCALES((R10), Z18)
	WSCALES((R10)(SI*1), Z23)
	ADDQ $32, R10
	PAIR4EPI(Z18, Z23)
	ADDQ R12, BX
	DECQ R13
	JNZ q4pblock
	PAIR4STORE(R13)
	LEAQ (R10)(SI*1), DX
	DECQ R14
	JNZ q4ppair
	VZEROUPPER
	RET
