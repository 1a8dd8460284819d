// The vectorised exponential of vec_exp.go for the Softmax and SiLUMul
// kernels (Cephes expf). Operands follow Go assembler order.

// Constants, one float32 each; EXP_LOAD_Z/EXP_LOAD_Y broadcast them.
DATA expConst<>+0(SB)/4, $0xc2d00000  // -104
DATA expConst<>+4(SB)/4, $0x42b1999a  // 88.8
DATA expConst<>+8(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expConst<>+12(SB)/4, $0x3f318000 // ln2Hi 0.693359375
DATA expConst<>+16(SB)/4, $0xb95e8083 // ln2Lo -2.12194440e-4
DATA expConst<>+20(SB)/4, $0x39506967 // c0 1.9875691500e-4
DATA expConst<>+24(SB)/4, $0x3ab743ce // c1 1.3981999507e-3
DATA expConst<>+28(SB)/4, $0x3c088908 // c2 8.3334519073e-3
DATA expConst<>+32(SB)/4, $0x3d2aa9c1 // c3 4.1665795894e-2
DATA expConst<>+36(SB)/4, $0x3e2aaaaa // c4 1.6666665459e-1
DATA expConst<>+40(SB)/4, $0x3f000000 // c5 5.0000001201e-1 (rounds to 0.5)
DATA expConst<>+44(SB)/4, $0x3f800000 // 1
DATA expConst<>+48(SB)/4, $0x0000007f // 127, the float32 exponent bias
GLOBL expConst<>(SB), RODATA|NOPTR, $52

// EXP_LOAD_Z broadcasts the constants into Z16…Z27 (lo, hi, log2e, ln2Hi,
// ln2Lo, c0…c5, 1), the registers EXPZ reads.
#define EXP_LOAD_Z \
	VBROADCASTSS expConst<>+0(SB), Z16; \
	VBROADCASTSS expConst<>+4(SB), Z17; \
	VBROADCASTSS expConst<>+8(SB), Z18; \
	VBROADCASTSS expConst<>+12(SB), Z19; \
	VBROADCASTSS expConst<>+16(SB), Z20; \
	VBROADCASTSS expConst<>+20(SB), Z21; \
	VBROADCASTSS expConst<>+24(SB), Z22; \
	VBROADCASTSS expConst<>+28(SB), Z23; \
	VBROADCASTSS expConst<>+32(SB), Z24; \
	VBROADCASTSS expConst<>+36(SB), Z25; \
	VBROADCASTSS expConst<>+40(SB), Z26; \
	VBROADCASTSS expConst<>+44(SB), Z27

// EXPZ replaces the 16 floats of X by their exponentials, with N, T and U
// as scratch. VMAXPS/VMINPS take X as their second source so a NaN in X is
// what they return: NaN propagates.
#define EXPZ(X, N, T, U) \
	VMAXPS       X, Z16, X; \
	VMINPS       X, Z17, X; \
	VMULPS       Z18, X, N; \
	VRNDSCALEPS  $0, N, N; \
	VFNMADD231PS Z19, N, X; \
	VFNMADD231PS Z20, N, X; \
	VMOVAPS      Z21, T; \
	VFMADD213PS  Z22, X, T; \
	VFMADD213PS  Z23, X, T; \
	VFMADD213PS  Z24, X, T; \
	VFMADD213PS  Z25, X, T; \
	VFMADD213PS  Z26, X, T; \
	VMULPS       X, X, U; \
	VFMADD213PS  X, U, T; \
	VADDPS       Z27, T, T; \
	VSCALEFPS    N, T, X

// EXP_LOAD_Y broadcasts lo, hi, log2e, ln2Hi, ln2Lo, 1 and the integer 127
// into Y8…Y14 for EXPY; the polynomial coefficients are broadcast from
// memory inside EXPY (AVX2 has 16 registers only).
#define EXP_LOAD_Y \
	VBROADCASTSS expConst<>+0(SB), Y8; \
	VBROADCASTSS expConst<>+4(SB), Y9; \
	VBROADCASTSS expConst<>+8(SB), Y10; \
	VBROADCASTSS expConst<>+12(SB), Y11; \
	VBROADCASTSS expConst<>+16(SB), Y12; \
	VBROADCASTSS expConst<>+44(SB), Y13; \
	VPBROADCASTD expConst<>+48(SB), Y14

// EXPY replaces the 8 floats of X by their exponentials, with N, T, U and
// C as scratch. 2ⁿ is applied as two exact factors 2^⌊n/2⌋ · 2^(n−⌊n/2⌋).
#define EXPY(X, N, T, U, C) \
	VMAXPS       X, Y8, X; \
	VMINPS       X, Y9, X; \
	VMULPS       Y10, X, N; \
	VROUNDPS     $0, N, N; \
	VFNMADD231PS Y11, N, X; \
	VFNMADD231PS Y12, N, X; \
	VBROADCASTSS expConst<>+20(SB), T; \
	VBROADCASTSS expConst<>+24(SB), C; \
	VFMADD213PS  C, X, T; \
	VBROADCASTSS expConst<>+28(SB), C; \
	VFMADD213PS  C, X, T; \
	VBROADCASTSS expConst<>+32(SB), C; \
	VFMADD213PS  C, X, T; \
	VBROADCASTSS expConst<>+36(SB), C; \
	VFMADD213PS  C, X, T; \
	VBROADCASTSS expConst<>+40(SB), C; \
	VFMADD213PS  C, X, T; \
	VMULPS       X, X, U; \
	VFMADD213PS  X, U, T; \
	VADDPS       Y13, T, T; \
	VCVTPS2DQ    N, N; \
	VPSRAD       $1, N, U; \
	VPSUBD       U, N, N; \
	VPADDD       Y14, U, U; \
	VPADDD       Y14, N, N; \
	VPSLLD       $23, U, U; \
	VPSLLD       $23, N, N; \
	VMULPS       U, T, T; \
	VMULPS       N, T, X
