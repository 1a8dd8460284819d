//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"

// func argminShiftedAVX512(norm, s *float32, n int, iota *[16]int32, best *[16]float32, idx *[16]int32)
//
// Per lane l, over the elements l, l+16, …: the smallest d = norm − 2·s
// (2·s exact, one rounding for the difference) and the first index with it
// (strictly smaller replaces); lanes start at +∞, index 0.
TEXT ·argminShiftedAVX512(SB), NOSPLIT, $0-48
	MOVQ         norm+0(FP), DI
	MOVQ         s+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         iota+24(FP), AX
	VMOVDQU32    (AX), Z2
	MOVL         $0x7f800000, AX
	VPBROADCASTD AX, Z0
	VPXORD       Z1, Z1, Z1
	MOVL         $16, AX
	VPBROADCASTD AX, Z3

argmin16:
	CMPQ      CX, $16
	JL        argmin_tail
	VMOVUPS   (SI), Z5
	VADDPS    Z5, Z5, Z5
	VMOVUPS   (DI), Z4
	VSUBPS    Z5, Z4, Z4
	VCMPPS    $0x11, Z0, Z4, K2
	VMOVAPS   Z4, K2, Z0
	VMOVDQA32 Z2, K2, Z1
	VPADDD    Z3, Z2, Z2
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       argmin16

argmin_tail:
	TESTQ     CX, CX
	JZ        argmin_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (SI), K1, Z5
	VADDPS    Z5, Z5, Z5
	VMOVUPS.Z (DI), K1, Z4
	VSUBPS    Z5, Z4, Z4
	VCMPPS    $0x11, Z0, Z4, K1, K2
	VMOVAPS   Z4, K2, Z0
	VMOVDQA32 Z2, K2, Z1

argmin_done:
	MOVQ      best+32(FP), AX
	VMOVUPS   Z0, (AX)
	MOVQ      idx+40(FP), AX
	VMOVDQU32 Z1, (AX)
	VZEROUPPER
	RET
