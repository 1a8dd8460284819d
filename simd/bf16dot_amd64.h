// VDPBF16PS (AVX512_BF16) encoded as bytes: Go's assembler lacks it
// (wave3.md §6). Each macro is named in Go operand order,
// VDPBF16PS_Zb_Zw_Zacc, and its Intel form is in its comment:
// acc.fp32[j] += w.bf16[2j+1]·b.bf16[2j+1], then += w.bf16[2j]·b.bf16[2j].
// Generated with GNU as + objdump from .intel_syntax lines.

// vdpbf16ps zmm0, zmm24, zmm28
#define VDPBF16PS_Z28_Z24_Z0 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// vdpbf16ps zmm1, zmm25, zmm28
#define VDPBF16PS_Z28_Z25_Z1 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xcc
// vdpbf16ps zmm2, zmm26, zmm28
#define VDPBF16PS_Z28_Z26_Z2 BYTE $0x62; BYTE $0x92; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// vdpbf16ps zmm3, zmm27, zmm28
#define VDPBF16PS_Z28_Z27_Z3 BYTE $0x62; BYTE $0x92; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xdc
// vdpbf16ps zmm4, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z4 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe5
// vdpbf16ps zmm5, zmm25, zmm29
#define VDPBF16PS_Z29_Z25_Z5 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xed
// vdpbf16ps zmm6, zmm26, zmm29
#define VDPBF16PS_Z29_Z26_Z6 BYTE $0x62; BYTE $0x92; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xf5
// vdpbf16ps zmm7, zmm27, zmm29
#define VDPBF16PS_Z29_Z27_Z7 BYTE $0x62; BYTE $0x92; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// vdpbf16ps zmm8, zmm24, zmm28
#define VDPBF16PS_Z28_Z24_Z8 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// vdpbf16ps zmm9, zmm25, zmm28
#define VDPBF16PS_Z28_Z25_Z9 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xcc
// vdpbf16ps zmm10, zmm26, zmm28
#define VDPBF16PS_Z28_Z26_Z10 BYTE $0x62; BYTE $0x12; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// vdpbf16ps zmm11, zmm27, zmm28
#define VDPBF16PS_Z28_Z27_Z11 BYTE $0x62; BYTE $0x12; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xdc
// vdpbf16ps zmm12, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z12 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe5
// vdpbf16ps zmm13, zmm25, zmm29
#define VDPBF16PS_Z29_Z25_Z13 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xed
// vdpbf16ps zmm14, zmm26, zmm29
#define VDPBF16PS_Z29_Z26_Z14 BYTE $0x62; BYTE $0x12; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xf5
// vdpbf16ps zmm15, zmm27, zmm29
#define VDPBF16PS_Z29_Z27_Z15 BYTE $0x62; BYTE $0x12; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// vdpbf16ps zmm16, zmm24, zmm28
#define VDPBF16PS_Z28_Z24_Z16 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// vdpbf16ps zmm17, zmm25, zmm28
#define VDPBF16PS_Z28_Z25_Z17 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xcc
// vdpbf16ps zmm18, zmm26, zmm28
#define VDPBF16PS_Z28_Z26_Z18 BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// vdpbf16ps zmm19, zmm27, zmm28
#define VDPBF16PS_Z28_Z27_Z19 BYTE $0x62; BYTE $0x82; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xdc
// vdpbf16ps zmm20, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z20 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe5
// vdpbf16ps zmm21, zmm25, zmm29
#define VDPBF16PS_Z29_Z25_Z21 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xed
// vdpbf16ps zmm22, zmm26, zmm29
#define VDPBF16PS_Z29_Z26_Z22 BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xf5
// vdpbf16ps zmm23, zmm27, zmm29
#define VDPBF16PS_Z29_Z27_Z23 BYTE $0x62; BYTE $0x82; BYTE $0x26; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// vdpbf16ps zmm1, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z1 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xcd
// vdpbf16ps zmm2, zmm24, zmm28
#define VDPBF16PS_Z28_Z24_Z2 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// vdpbf16ps zmm3, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z3 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xdd
// vdpbf16ps zmm4, zmm24, zmm28
#define VDPBF16PS_Z28_Z24_Z4 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe4
// vdpbf16ps zmm5, zmm24, zmm29
#define VDPBF16PS_Z29_Z24_Z5 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xed
// vdpbf16ps zmm0, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z0 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc7
// vdpbf16ps zmm1, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z1 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcf
// vdpbf16ps zmm2, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z2 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xd7
// vdpbf16ps zmm3, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z3 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xdf
// vdpbf16ps zmm4, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z4 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe7
// vdpbf16ps zmm5, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z5 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xef
// vdpbf16ps zmm6, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z6 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xf7
// vdpbf16ps zmm7, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z7 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xff
// vdpbf16ps zmm8, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z8 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc7
// vdpbf16ps zmm9, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z9 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcf
// vdpbf16ps zmm10, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z10 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xd7
// vdpbf16ps zmm11, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z11 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xdf
// vdpbf16ps zmm12, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z12 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe7
// vdpbf16ps zmm13, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z13 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xef
// vdpbf16ps zmm14, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z14 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xf7
// vdpbf16ps zmm15, zmm30, zmm31
#define VDPBF16PS_Z31_Z30_Z15 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xff
// vcvtneps2bf16 ymm1, zmm0 (16 fp32 → 16 bf16, round to nearest even)
#define VCVTNEPS2BF16_Z0_Y1 BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xc8
