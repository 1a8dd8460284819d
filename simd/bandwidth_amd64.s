//go:build amd64 && gc && !purego

#include "textflag.h"

// func streamReadAVX512(p unsafe.Pointer, n int) uint64
//
// n is a multiple of 1024, read as four streams (the quarters of p, side
// by side, 64 bytes of each per step, 1024 bytes ahead prefetched), as the
// int8 GEMV kernels for one and two rows read four panels: one core reads
// DRAM faster with four streams in flight than with one.
TEXT ·streamReadAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), R8
	SHRQ $2, R8
	LEAQ (SI)(R8*2), DX
	MOVQ R8, CX
	SHRQ $6, CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
loop512:
	PREFETCHT0 1024(SI)
	PREFETCHT0 1024(SI)(R8*1)
	PREFETCHT0 1024(DX)
	PREFETCHT0 1024(DX)(R8*1)
	VPADDQ (SI), Z0, Z0
	VPADDQ (SI)(R8*1), Z1, Z1
	VPADDQ (DX), Z2, Z2
	VPADDQ (DX)(R8*1), Z3, Z3
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ CX
	JNZ loop512
	VPADDQ Z1, Z0, Z0
	VPADDQ Z3, Z2, Z2
	VPADDQ Z2, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDQ Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDQ X1, X0, X0
	MOVQ X0, AX
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET

// func streamReadAVX2(p unsafe.Pointer, n int) uint64
TEXT ·streamReadAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $8, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
loop256:
	VPADDQ (SI), Y0, Y0
	VPADDQ 32(SI), Y1, Y1
	VPADDQ 64(SI), Y2, Y2
	VPADDQ 96(SI), Y3, Y3
	VPADDQ 128(SI), Y0, Y0
	VPADDQ 160(SI), Y1, Y1
	VPADDQ 192(SI), Y2, Y2
	VPADDQ 224(SI), Y3, Y3
	ADDQ $256, SI
	DECQ CX
	JNZ loop256
	VPADDQ Y1, Y0, Y0
	VPADDQ Y3, Y2, Y2
	VPADDQ Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDQ X1, X0, X0
	MOVQ X0, AX
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET
