//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"

#define X SI
#define W BX
#define OUT DI
#define N CX

// func sumSquaresAVX512(x *float32, n int) float64
//
// Σ float64(x[i])²: 32 float64 partial sums (4 registers × 8 lanes).
TEXT ·sumSquaresAVX512(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), X
	MOVQ   n+8(FP), N
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3

ss512_32:
	CMPQ        N, $32
	JL          ss512_8
	VCVTPS2PD   (X), Z4
	VCVTPS2PD   32(X), Z5
	VCVTPS2PD   64(X), Z6
	VCVTPS2PD   96(X), Z7
	VFMADD231PD Z4, Z4, Z0
	VFMADD231PD Z5, Z5, Z1
	VFMADD231PD Z6, Z6, Z2
	VFMADD231PD Z7, Z7, Z3
	ADDQ        $128, X
	SUBQ        $32, N
	JMP         ss512_32

ss512_8:
	CMPQ        N, $8
	JL          ss512_tail
	VCVTPS2PD   (X), Z4
	VFMADD231PD Z4, Z4, Z0
	ADDQ        $32, X
	SUBQ        $8, N
	JMP         ss512_8

ss512_tail:
	TESTQ       N, N
	JZ          ss512_reduce
	TAILMASK(AX, K1)
	VCVTPS2PD.Z (X), K1, Z4
	VFMADD231PD Z4, Z4, Z1

ss512_reduce:
	VADDPD        Z1, Z0, Z0
	VADDPD        Z3, Z2, Z2
	VADDPD        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPD        X1, X0, X0
	VUNPCKHPD     X0, X0, X1
	VADDSD        X1, X0, X0
	VMOVSD        X0, ret+16(FP)
	VZEROUPPER
	RET

// func sumSquaresAVX2(x *float32, n int) float64
//
// Σ float64(x[i])²: 16 float64 partial sums (4 registers × 4 lanes), then
// the last n mod 4 squares added one by one.
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), X
	MOVQ   n+8(FP), N
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

ss2_16:
	CMPQ        N, $16
	JL          ss2_4
	VCVTPS2PD   (X), Y4
	VCVTPS2PD   16(X), Y5
	VCVTPS2PD   32(X), Y6
	VCVTPS2PD   48(X), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ        $64, X
	SUBQ        $16, N
	JMP         ss2_16

ss2_4:
	CMPQ        N, $4
	JL          ss2_reduce
	VCVTPS2PD   (X), Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ        $16, X
	SUBQ        $4, N
	JMP         ss2_4

ss2_reduce:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0

ss2_1:
	TESTQ       N, N
	JZ          ss2_done
	VCVTSS2SD   (X), X4, X4
	VFMADD231SD X4, X4, X0
	ADDQ        $4, X
	DECQ        N
	JMP         ss2_1

ss2_done:
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func scaleMulAVX512(out, x, w *float32, n int, inv float32)
//
// out[i] = (x[i] * inv) * w[i].
TEXT ·scaleMulAVX512(SB), NOSPLIT, $0-36
	MOVQ         out+0(FP), OUT
	MOVQ         x+8(FP), X
	MOVQ         w+16(FP), W
	MOVQ         n+24(FP), N
	VBROADCASTSS inv+32(FP), Z8

sm512_64:
	CMPQ    N, $64
	JL      sm512_16
	VMULPS  (X), Z8, Z0
	VMULPS  64(X), Z8, Z1
	VMULPS  128(X), Z8, Z2
	VMULPS  192(X), Z8, Z3
	VMULPS  (W), Z0, Z0
	VMULPS  64(W), Z1, Z1
	VMULPS  128(W), Z2, Z2
	VMULPS  192(W), Z3, Z3
	VMOVUPS Z0, (OUT)
	VMOVUPS Z1, 64(OUT)
	VMOVUPS Z2, 128(OUT)
	VMOVUPS Z3, 192(OUT)
	ADDQ    $256, X
	ADDQ    $256, W
	ADDQ    $256, OUT
	SUBQ    $64, N
	JMP     sm512_64

sm512_16:
	CMPQ    N, $16
	JL      sm512_tail
	VMULPS  (X), Z8, Z0
	VMULPS  (W), Z0, Z0
	VMOVUPS Z0, (OUT)
	ADDQ    $64, X
	ADDQ    $64, W
	ADDQ    $64, OUT
	SUBQ    $16, N
	JMP     sm512_16

sm512_tail:
	TESTQ     N, N
	JZ        sm512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (X), K1, Z0
	VMOVUPS.Z (W), K1, Z1
	VMULPS    Z0, Z8, Z0
	VMULPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (OUT)

sm512_done:
	VZEROUPPER
	RET

// func scaleMulAVX2(out, x, w *float32, n int, inv float32)
//
// out[i] = (x[i] * inv) * w[i].
TEXT ·scaleMulAVX2(SB), NOSPLIT, $0-36
	MOVQ         out+0(FP), OUT
	MOVQ         x+8(FP), X
	MOVQ         w+16(FP), W
	MOVQ         n+24(FP), N
	VBROADCASTSS inv+32(FP), Y8

sm2_32:
	CMPQ    N, $32
	JL      sm2_8
	VMULPS  (X), Y8, Y0
	VMULPS  32(X), Y8, Y1
	VMULPS  64(X), Y8, Y2
	VMULPS  96(X), Y8, Y3
	VMULPS  (W), Y0, Y0
	VMULPS  32(W), Y1, Y1
	VMULPS  64(W), Y2, Y2
	VMULPS  96(W), Y3, Y3
	VMOVUPS Y0, (OUT)
	VMOVUPS Y1, 32(OUT)
	VMOVUPS Y2, 64(OUT)
	VMOVUPS Y3, 96(OUT)
	ADDQ    $128, X
	ADDQ    $128, W
	ADDQ    $128, OUT
	SUBQ    $32, N
	JMP     sm2_32

sm2_8:
	CMPQ    N, $8
	JL      sm2_1
	VMULPS  (X), Y8, Y0
	VMULPS  (W), Y0, Y0
	VMOVUPS Y0, (OUT)
	ADDQ    $32, X
	ADDQ    $32, W
	ADDQ    $32, OUT
	SUBQ    $8, N
	JMP     sm2_8

sm2_1:
	TESTQ  N, N
	JZ     sm2_done
	VMULSS (X), X8, X0
	VMULSS (W), X0, X0
	VMOVSS X0, (OUT)
	ADDQ   $4, X
	ADDQ   $4, W
	ADDQ   $4, OUT
	DECQ   N
	JMP    sm2_1

sm2_done:
	VZEROUPPER
	RET
