// The per-block epilogue every int8-activation GEMM kernel shares, int8
// weights (gemm_amd64.s) and 4-bit (gemm_q4_amd64.s, gemm_q4_quad_amd64.s)
// alike: the block's bf16 weight scales widened to fp32, and the block's
// int32 sum for one input row scaled and added. BX points at the block's
// activation scales.

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
