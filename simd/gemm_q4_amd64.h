// Shared by the 4-bit GEMM kernels (gemm_q4_amd64.s, the one-panel ones;
// gemm_q4_quad_amd64.s, those reading four or two panels at once). See
// gemm_q4_amd64.s for the register use.

// Q4SETUP loads the arguments every 4-bit kernel keeps in registers: DI
// the output, R8 ldy, R9 ldx, R12 ldsc and R11 ldsc/2, DX the code
// stream, R14 the panels (or quads, or pairs) to run; Z19 bytes 0x0f and
// Z20 the codebook (levels+128) in every 128-bit lane.
#define Q4SETUP \
	GEMMARGS; \
	MOVQ np+64(FP), R14; \
	MOVL $0x0f0f0f0f, R10; \
	VPBROADCASTD R10, Z19; \
	MOVQ tab+72(FP), R10; \
	VBROADCASTI32X4 (R10), Z20
