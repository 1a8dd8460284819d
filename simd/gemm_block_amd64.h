// What the int8-activation GEMM kernels share, int8 weights (gemm_amd64.s)
// and 4-bit (gemm_q4_amd64.s, gemm_q4_quad_amd64.s) alike: a block's bf16
// weight scales widened to fp32 and its int32 sums scaled into the fp32
// accumulators (BX points at the block's activation scales), the
// multi-panel kernels' register conventions for starting, finishing and
// storing a block, and the quad kernels' four weight streams.

// GEMMARGS loads the arguments every int8-activation GEMM kernel takes
// first (y, ldy, x's stride, the activation scales' stride, w): DI the
// output, R8 ldy, R9 ldx, R12 ldsc and R11 ldsc/2 (where -xsum128 sits
// after xs), DX the weight stream.
#define GEMMARGS \
	MOVQ y+0(FP), DI; \
	MOVQ ldy+8(FP), R8; \
	MOVQ ldx+24(FP), R9; \
	MOVQ ldsc+40(FP), R12; \
	MOVQ R12, R11; \
	SHRQ $1, R11; \
	MOVQ w+48(FP), DX

// WSCALES loads a block's 16 bf16 weight scales from src into z as fp32
// (a bf16 is the high half of its fp32).
#define WSCALES(src, z) \
	VPMOVZXWD src, z; \
	VPSLLD $16, z, z

// VEPIS finishes one block for one input row: acc is its int32 sum (which
// started at -xsum128, so it is already Σ qw·qx), off the row's byte offset
// among the block's activation scales, ws the block's weight scales; the
// result is added to facc.
#define VEPIS(acc, facc, off, ws) \
	VCVTDQ2PS acc, acc; \
	VMULPS.BCST off(BX), acc, acc; \
	VMULPS ws, acc, acc; \
	VADDPS acc, facc, facc

// VEPI is VEPIS with the weight scales in Z18.
#define VEPI(acc, facc, off) VEPIS(acc, facc, off, Z18)

// The multi-panel kernels' block ends and stores, int8 and 4-bit alike.
// One row against a quad: panel p's int32 sum in the chains Z(2p) and
// Z(2p+1), its fp32 accumulator Z(8+p). Two rows against a quad: panel p,
// row r in Z(2p+r), accumulator Z(8+2p+r). Four rows against a pair:
// panel A, row r in Z(r), panel B in Z(4+r); accumulators Z(8+r), Z(12+r).
// w0-w3 (wA, wB) hold the panels' weight scales.

// ZACC4 and ZACC8 zero the fp32 accumulators Z8-Z11 and Z8-Z15.
#define ZACC4 \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11
#define ZACC8 \
	ZACC4; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

// QUAD1INIT starts a block of a one-row quad: each panel's first chain at
// the row's -xsum128, its second at zero.
#define QUAD1INIT \
	VPBROADCASTD 0(BX)(R11*1), Z0; \
	VMOVDQA64 Z0, Z2; \
	VMOVDQA64 Z0, Z4; \
	VMOVDQA64 Z0, Z6; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z7, Z7, Z7

// QUAD2INIT starts a block of a two-row quad: each sum at its row's
// -xsum128.
#define QUAD2INIT \
	VPBROADCASTD 0(BX)(R11*1), Z0; \
	VPBROADCASTD 4(BX)(R11*1), Z1; \
	VMOVDQA64 Z0, Z2; \
	VMOVDQA64 Z1, Z3; \
	VMOVDQA64 Z0, Z4; \
	VMOVDQA64 Z1, Z5; \
	VMOVDQA64 Z0, Z6; \
	VMOVDQA64 Z1, Z7

// PAIR4INIT starts a block of a four-row pair: each sum at its row's
// -xsum128.
#define PAIR4INIT \
	VPBROADCASTD 0(BX)(R11*1), Z0; \
	VPBROADCASTD 4(BX)(R11*1), Z1; \
	VPBROADCASTD 8(BX)(R11*1), Z2; \
	VPBROADCASTD 12(BX)(R11*1), Z3; \
	VMOVDQA64 Z0, Z4; \
	VMOVDQA64 Z1, Z5; \
	VMOVDQA64 Z2, Z6; \
	VMOVDQA64 Z3, Z7

// QUAD1SUMS adds each panel's two chains of a one-row quad into Z(2p).
#define QUAD1SUMS \
	VPADDD Z1, Z0, Z0; \
	VPADDD Z3, Z2, Z2; \
	VPADDD Z5, Z4, Z4; \
	VPADDD Z7, Z6, Z6

// QUAD1EPI finishes a block of a one-row quad (after QUAD1SUMS).
#define QUAD1EPI(w0, w1, w2, w3) \
	VEPIS(Z0, Z8, 0, w0); \
	VEPIS(Z2, Z9, 0, w1); \
	VEPIS(Z4, Z10, 0, w2); \
	VEPIS(Z6, Z11, 0, w3)

// QUAD1STORE writes a one-row quad's 64 outputs at DI and steps DI past them.
#define QUAD1STORE \
	VMOVUPS Z8, (DI); \
	VMOVUPS Z9, 64(DI); \
	VMOVUPS Z10, 128(DI); \
	VMOVUPS Z11, 192(DI); \
	ADDQ $256, DI

// QUAD2EPI finishes a block of a two-row quad.
#define QUAD2EPI(w0, w1, w2, w3) \
	VEPIS(Z0, Z8, 0, w0); \
	VEPIS(Z1, Z9, 4, w0); \
	VEPIS(Z2, Z10, 0, w1); \
	VEPIS(Z3, Z11, 4, w1); \
	VEPIS(Z4, Z12, 0, w2); \
	VEPIS(Z5, Z13, 4, w2); \
	VEPIS(Z6, Z14, 0, w3); \
	VEPIS(Z7, Z15, 4, w3)

// QUAD2STORE writes a two-row quad's outputs, the second row ld bytes
// after the first, at DI and steps DI past the first row's.
#define QUAD2STORE(ld) \
	VMOVUPS Z8, 0(DI); \
	VMOVUPS Z9, 0(DI)(ld*1); \
	VMOVUPS Z10, 64(DI); \
	VMOVUPS Z11, 64(DI)(ld*1); \
	VMOVUPS Z12, 128(DI); \
	VMOVUPS Z13, 128(DI)(ld*1); \
	VMOVUPS Z14, 192(DI); \
	VMOVUPS Z15, 192(DI)(ld*1); \
	ADDQ $256, DI

// PAIR4EPI finishes a block of a four-row pair.
#define PAIR4EPI(wA, wB) \
	VEPIS(Z0, Z8, 0, wA); \
	VEPIS(Z1, Z9, 4, wA); \
	VEPIS(Z2, Z10, 8, wA); \
	VEPIS(Z3, Z11, 12, wA); \
	VEPIS(Z4, Z12, 0, wB); \
	VEPIS(Z5, Z13, 4, wB); \
	VEPIS(Z6, Z14, 8, wB); \
	VEPIS(Z7, Z15, 12, wB)

// PAIR4STORE writes a four-row pair's outputs (rows R8 bytes apart) at DI,
// walking them with r, and steps DI past the first row's.
#define PAIR4STORE(r) \
	MOVQ DI, r; \
	VMOVUPS Z8, (r); \
	VMOVUPS Z12, 64(r); \
	ADDQ R8, r; \
	VMOVUPS Z9, (r); \
	VMOVUPS Z13, 64(r); \
	ADDQ R8, r; \
	VMOVUPS Z10, (r); \
	VMOVUPS Z14, 64(r); \
	ADDQ R8, r; \
	VMOVUPS Z11, (r); \
	VMOVUPS Z15, 64(r); \
	ADDQ $128, DI

// The quad kernels' four weight streams: panels A-D at DX, DX+SI, DX+2·SI
// and CX+2·SI (CX = DX+SI), int8 and 4-bit alike.

// PFD4 is how far ahead (bytes) the quad kernels (and the 4-bit four-row
// pair kernel) prefetch each stream.
#define PFD4 1024

// QUADLOAD prefetches a quad's four panels pf bytes ahead and loads their
// 64 bytes at off into a-d (panels at DX, DX+SI, DX+2·SI, CX+2·SI).
#define QUADLOAD(off, pf, a, b, c, d) \
	PREFETCHT0 pf(DX); \
	PREFETCHT0 pf(DX)(SI*1); \
	PREFETCHT0 pf(DX)(SI*2); \
	PREFETCHT0 pf(CX)(SI*2); \
	VMOVDQU64 off(DX), a; \
	VMOVDQU64 off(DX)(SI*1), b; \
	VMOVDQU64 off(DX)(SI*2), c; \
	VMOVDQU64 off(CX)(SI*2), d

// QUADLOADNP is QUADLOAD without the prefetches (pf unused): the quad
// kernels' variant for CPUs that stream four panels faster on their own
// (quadPrefetch).
#define QUADLOADNP(off, pf, a, b, c, d) \
	VMOVDQU64 off(DX), a; \
	VMOVDQU64 off(DX)(SI*1), b; \
	VMOVDQU64 off(DX)(SI*2), c; \
	VMOVDQU64 off(CX)(SI*2), d

// QUADSCALES loads a block's bf16 weight scales of a quad's four panels,
// at p, p+SI, p+2·SI and q+2·SI (q = p+SI), into a-d as fp32 and steps p
// and q past them.
#define QUADSCALES(p, q, a, b, c, d) \
	WSCALES((p), a); \
	WSCALES((p)(SI*1), b); \
	WSCALES((p)(SI*2), c); \
	WSCALES((q)(SI*2), d); \
	ADDQ $32, p; \
	ADDQ $32, q
