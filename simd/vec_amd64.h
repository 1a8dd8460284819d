// Shared macros for omni's fp32 vector kernels (included by the *_amd64.s
// files of the vector ops). Operands follow Go assembler order.

// HSUMZ adds the 16 lanes of zmm Z (whose ymm/xmm names are Y and X) into
// the low lane of X, using YT/XT (another register's ymm/xmm names) as
// scratch: 256-bit halves, then 128-bit halves, then pairs, then the last two.
#define HSUMZ(Z, Y, X, YT, XT) \
	VEXTRACTF32X8 $1, Z, YT; \
	VADDPS        YT, Y, Y; \
	VEXTRACTF128  $1, Y, XT; \
	VADDPS        XT, X, X; \
	VMOVHLPS      X, X, XT; \
	VADDPS        XT, X, X; \
	VMOVSHDUP     X, XT; \
	VADDSS        XT, X, X

// HSUMY adds the 8 lanes of ymm Y (xmm name X) into the low lane of X.
#define HSUMY(Y, X, XT) \
	VEXTRACTF128 $1, Y, XT; \
	VADDPS       XT, X, X; \
	VMOVHLPS     X, X, XT; \
	VADDPS       XT, X, X; \
	VMOVSHDUP    X, XT; \
	VADDSS       XT, X, X

// TAILMASK sets mask register K to the low N bits (N in CX, 1 ≤ N ≤ 16),
// clobbering R (a 32-bit register name).
#define TAILMASK(R, K) \
	MOVL  $1, R; \
	SHLL  CX, R; \
	DECL  R; \
	KMOVW R, K
