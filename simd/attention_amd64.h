// Shared by attention_amd64.s and attention2_amd64.s: the score kernels'
// reductions of their fused multiply-add accumulators (an 8-position block
// and a lone position), so that one head or two give the same bits, and
// the weighted sums' moves of 128 output floats (D the byte offset).

// ZERO8 clears eight accumulators.
#define ZERO8(z0, z1, z2, z3, z4, z5, z6, z7) \
	VXORPS z0, z0, z0 \
	VXORPS z1, z1, z1 \
	VXORPS z2, z2, z2 \
	VXORPS z3, z3, z3 \
	VXORPS z4, z4, z4 \
	VXORPS z5, z5, z5 \
	VXORPS z6, z6, z6 \
	VXORPS z7, z7, z7

// LOAD8 loads the 128 floats at base+D into z0…z7.
#define LOAD8(base, z0, z1, z2, z3, z4, z5, z6, z7) \
	VMOVUPS (base)(D*1), z0    \
	VMOVUPS 64(base)(D*1), z1  \
	VMOVUPS 128(base)(D*1), z2 \
	VMOVUPS 192(base)(D*1), z3 \
	VMOVUPS 256(base)(D*1), z4 \
	VMOVUPS 320(base)(D*1), z5 \
	VMOVUPS 384(base)(D*1), z6 \
	VMOVUPS 448(base)(D*1), z7

// STORE8 stores z0…z7 to the 128 floats at base+D.
#define STORE8(base, z0, z1, z2, z3, z4, z5, z6, z7) \
	VMOVUPS z0, (base)(D*1)    \
	VMOVUPS z1, 64(base)(D*1)  \
	VMOVUPS z2, 128(base)(D*1) \
	VMOVUPS z3, 192(base)(D*1) \
	VMOVUPS z4, 256(base)(D*1) \
	VMOVUPS z5, 320(base)(D*1) \
	VMOVUPS z6, 384(base)(D*1) \
	VMOVUPS z7, 448(base)(D*1)

// REDUCE8 sums each of eight accumulators' lanes in attnScoresAVX512's
// order, scales them by Z15 and stores the eight scores at dst (Z9-Z11
// scratch, Z16 the gather permutation). It overwrites a0, a2, a4, a6.
#define REDUCE8(a0, a1, a2, a3, a4, a5, a6, a7, dst) \
	VSHUFF32X4 $0x44, a1, a0, Z9  \
	VSHUFF32X4 $0xEE, a1, a0, Z10 \
	VADDPS     Z10, Z9, a0        \
	VSHUFF32X4 $0x44, a3, a2, Z9  \
	VSHUFF32X4 $0xEE, a3, a2, Z10 \
	VADDPS     Z10, Z9, a2        \
	VSHUFF32X4 $0x44, a5, a4, Z9  \
	VSHUFF32X4 $0xEE, a5, a4, Z10 \
	VADDPS     Z10, Z9, a4        \
	VSHUFF32X4 $0x44, a7, a6, Z9  \
	VSHUFF32X4 $0xEE, a7, a6, Z10 \
	VADDPS     Z10, Z9, a6        \
	VSHUFF32X4 $0x88, a2, a0, Z9  \
	VSHUFF32X4 $0xDD, a2, a0, Z10 \
	VADDPS     Z10, Z9, a0        \
	VSHUFF32X4 $0x88, a6, a4, Z9  \
	VSHUFF32X4 $0xDD, a6, a4, Z10 \
	VADDPS     Z10, Z9, a4        \
	VSHUFPS    $0x88, a4, a0, Z9  \
	VSHUFPS    $0xDD, a4, a0, Z10 \
	VADDPS     Z10, Z9, Z9        \
	VSHUFPS    $0x88, Z9, Z9, Z10 \
	VSHUFPS    $0xDD, Z9, Z9, Z11 \
	VADDPS     Z11, Z10, Z10      \
	VPERMPS    Z10, Z16, Z11      \
	VMULPS     Z15, Z11, Z11      \
	VMOVUPS    Y11, dst

// REDUCE1 reduces accumulator z (a Z register of 0-7) in
// attnScoresAVX512's one-position order, scales it by X15 and stores it
// at dst, with t (a Z register of 0-7) as scratch.
#define REDUCE1(zz, yz, xz, yt, xt, dst) \
	VEXTRACTF32X8 $1, zz, yt \
	VADDPS        yt, yz, yz \
	VEXTRACTF128  $1, yz, xt \
	VADDPS        xt, xz, xz \
	VMOVSHDUP     xz, xt     \
	VADDPS        xt, xz, xz \
	VMOVHLPS      xz, xz, xt \
	VADDSS        xt, xz, xz \
	VMULSS        X15, xz, xz \
	VMOVSS        xz, dst

