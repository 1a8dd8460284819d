//go:build amd64 && gc && !purego

#include "textflag.h"
#include "vec_amd64.h"

#define DST DI
#define SRC SI
#define N CX

// func addAVX512(dst, x *float32, n int)
TEXT ·addAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DST
	MOVQ x+8(FP), SRC
	MOVQ n+16(FP), N

add512_64:
	CMPQ    N, $64
	JL      add512_16
	VMOVUPS (DST), Z0
	VMOVUPS 64(DST), Z1
	VMOVUPS 128(DST), Z2
	VMOVUPS 192(DST), Z3
	VADDPS  (SRC), Z0, Z0
	VADDPS  64(SRC), Z1, Z1
	VADDPS  128(SRC), Z2, Z2
	VADDPS  192(SRC), Z3, Z3
	VMOVUPS Z0, (DST)
	VMOVUPS Z1, 64(DST)
	VMOVUPS Z2, 128(DST)
	VMOVUPS Z3, 192(DST)
	ADDQ    $256, DST
	ADDQ    $256, SRC
	SUBQ    $64, N
	JMP     add512_64

add512_16:
	CMPQ    N, $16
	JL      add512_tail
	VMOVUPS (DST), Z0
	VADDPS  (SRC), Z0, Z0
	VMOVUPS Z0, (DST)
	ADDQ    $64, DST
	ADDQ    $64, SRC
	SUBQ    $16, N
	JMP     add512_16

add512_tail:
	TESTQ     N, N
	JZ        add512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (DST), K1, Z0
	VMOVUPS.Z (SRC), K1, Z1
	VADDPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (DST)

add512_done:
	VZEROUPPER
	RET

// func addAVX2(dst, x *float32, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DST
	MOVQ x+8(FP), SRC
	MOVQ n+16(FP), N

add2_32:
	CMPQ    N, $32
	JL      add2_8
	VMOVUPS (DST), Y0
	VMOVUPS 32(DST), Y1
	VMOVUPS 64(DST), Y2
	VMOVUPS 96(DST), Y3
	VADDPS  (SRC), Y0, Y0
	VADDPS  32(SRC), Y1, Y1
	VADDPS  64(SRC), Y2, Y2
	VADDPS  96(SRC), Y3, Y3
	VMOVUPS Y0, (DST)
	VMOVUPS Y1, 32(DST)
	VMOVUPS Y2, 64(DST)
	VMOVUPS Y3, 96(DST)
	ADDQ    $128, DST
	ADDQ    $128, SRC
	SUBQ    $32, N
	JMP     add2_32

add2_8:
	CMPQ    N, $8
	JL      add2_1
	VMOVUPS (DST), Y0
	VADDPS  (SRC), Y0, Y0
	VMOVUPS Y0, (DST)
	ADDQ    $32, DST
	ADDQ    $32, SRC
	SUBQ    $8, N
	JMP     add2_8

add2_1:
	TESTQ  N, N
	JZ     add2_done
	VMOVSS (DST), X0
	VADDSS (SRC), X0, X0
	VMOVSS X0, (DST)
	ADDQ   $4, DST
	ADDQ   $4, SRC
	DECQ   N
	JMP    add2_1

add2_done:
	VZEROUPPER
	RET

// func scaleAVX512(x *float32, n int, alpha float32)
TEXT ·scaleAVX512(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), DST
	MOVQ         n+8(FP), N
	VBROADCASTSS alpha+16(FP), Z4

scale512_64:
	CMPQ    N, $64
	JL      scale512_16
	VMULPS  (DST), Z4, Z0
	VMULPS  64(DST), Z4, Z1
	VMULPS  128(DST), Z4, Z2
	VMULPS  192(DST), Z4, Z3
	VMOVUPS Z0, (DST)
	VMOVUPS Z1, 64(DST)
	VMOVUPS Z2, 128(DST)
	VMOVUPS Z3, 192(DST)
	ADDQ    $256, DST
	SUBQ    $64, N
	JMP     scale512_64

scale512_16:
	CMPQ    N, $16
	JL      scale512_tail
	VMULPS  (DST), Z4, Z0
	VMOVUPS Z0, (DST)
	ADDQ    $64, DST
	SUBQ    $16, N
	JMP     scale512_16

scale512_tail:
	TESTQ     N, N
	JZ        scale512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z (DST), K1, Z0
	VMULPS    Z0, Z4, Z0
	VMOVUPS   Z0, K1, (DST)

scale512_done:
	VZEROUPPER
	RET

// func scaleAVX2(x *float32, n int, alpha float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), DST
	MOVQ         n+8(FP), N
	VBROADCASTSS alpha+16(FP), Y4

scale2_32:
	CMPQ    N, $32
	JL      scale2_8
	VMULPS  (DST), Y4, Y0
	VMULPS  32(DST), Y4, Y1
	VMULPS  64(DST), Y4, Y2
	VMULPS  96(DST), Y4, Y3
	VMOVUPS Y0, (DST)
	VMOVUPS Y1, 32(DST)
	VMOVUPS Y2, 64(DST)
	VMOVUPS Y3, 96(DST)
	ADDQ    $128, DST
	SUBQ    $32, N
	JMP     scale2_32

scale2_8:
	CMPQ    N, $8
	JL      scale2_1
	VMULPS  (DST), Y4, Y0
	VMOVUPS Y0, (DST)
	ADDQ    $32, DST
	SUBQ    $8, N
	JMP     scale2_8

scale2_1:
	TESTQ  N, N
	JZ     scale2_done
	VMULSS (DST), X4, X0
	VMOVSS X0, (DST)
	ADDQ   $4, DST
	DECQ   N
	JMP    scale2_1

scale2_done:
	VZEROUPPER
	RET

// func axpyAVX512(y, x *float32, n int, alpha float32)
TEXT ·axpyAVX512(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DST
	MOVQ         x+8(FP), SRC
	MOVQ         n+16(FP), N
	VBROADCASTSS alpha+24(FP), Z4

axpy512_64:
	CMPQ        N, $64
	JL          axpy512_16
	VMOVUPS     (DST), Z0
	VMOVUPS     64(DST), Z1
	VMOVUPS     128(DST), Z2
	VMOVUPS     192(DST), Z3
	VFMADD231PS (SRC), Z4, Z0
	VFMADD231PS 64(SRC), Z4, Z1
	VFMADD231PS 128(SRC), Z4, Z2
	VFMADD231PS 192(SRC), Z4, Z3
	VMOVUPS     Z0, (DST)
	VMOVUPS     Z1, 64(DST)
	VMOVUPS     Z2, 128(DST)
	VMOVUPS     Z3, 192(DST)
	ADDQ        $256, DST
	ADDQ        $256, SRC
	SUBQ        $64, N
	JMP         axpy512_64

axpy512_16:
	CMPQ        N, $16
	JL          axpy512_tail
	VMOVUPS     (DST), Z0
	VFMADD231PS (SRC), Z4, Z0
	VMOVUPS     Z0, (DST)
	ADDQ        $64, DST
	ADDQ        $64, SRC
	SUBQ        $16, N
	JMP         axpy512_16

axpy512_tail:
	TESTQ       N, N
	JZ          axpy512_done
	TAILMASK(AX, K1)
	VMOVUPS.Z   (DST), K1, Z0
	VMOVUPS.Z   (SRC), K1, Z1
	VFMADD231PS Z1, Z4, Z0
	VMOVUPS     Z0, K1, (DST)

axpy512_done:
	VZEROUPPER
	RET

// func axpyAVX2(y, x *float32, n int, alpha float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DST
	MOVQ         x+8(FP), SRC
	MOVQ         n+16(FP), N
	VBROADCASTSS alpha+24(FP), Y4

axpy2_32:
	CMPQ        N, $32
	JL          axpy2_8
	VMOVUPS     (DST), Y0
	VMOVUPS     32(DST), Y1
	VMOVUPS     64(DST), Y2
	VMOVUPS     96(DST), Y3
	VFMADD231PS (SRC), Y4, Y0
	VFMADD231PS 32(SRC), Y4, Y1
	VFMADD231PS 64(SRC), Y4, Y2
	VFMADD231PS 96(SRC), Y4, Y3
	VMOVUPS     Y0, (DST)
	VMOVUPS     Y1, 32(DST)
	VMOVUPS     Y2, 64(DST)
	VMOVUPS     Y3, 96(DST)
	ADDQ        $128, DST
	ADDQ        $128, SRC
	SUBQ        $32, N
	JMP         axpy2_32

axpy2_8:
	CMPQ        N, $8
	JL          axpy2_1
	VMOVUPS     (DST), Y0
	VFMADD231PS (SRC), Y4, Y0
	VMOVUPS     Y0, (DST)
	ADDQ        $32, DST
	ADDQ        $32, SRC
	SUBQ        $8, N
	JMP         axpy2_8

axpy2_1:
	TESTQ       N, N
	JZ          axpy2_done
	VMOVSS      (DST), X0
	VFMADD231SS (SRC), X4, X0
	VMOVSS      X0, (DST)
	ADDQ        $4, DST
	ADDQ        $4, SRC
	DECQ        N
	JMP         axpy2_1

axpy2_done:
	VZEROUPPER
	RET

// func dotAVX512(x, y *float32, n int) float32
TEXT ·dotAVX512(SB), NOSPLIT, $0-28
	MOVQ   x+0(FP), SRC
	MOVQ   y+8(FP), DST
	MOVQ   n+16(FP), N
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3

dot512_64:
	CMPQ        N, $64
	JL          dot512_16
	VMOVUPS     (SRC), Z4
	VMOVUPS     64(SRC), Z5
	VMOVUPS     128(SRC), Z6
	VMOVUPS     192(SRC), Z7
	VFMADD231PS (DST), Z4, Z0
	VFMADD231PS 64(DST), Z5, Z1
	VFMADD231PS 128(DST), Z6, Z2
	VFMADD231PS 192(DST), Z7, Z3
	ADDQ        $256, SRC
	ADDQ        $256, DST
	SUBQ        $64, N
	JMP         dot512_64

dot512_16:
	CMPQ        N, $16
	JL          dot512_tail
	VMOVUPS     (SRC), Z4
	VFMADD231PS (DST), Z4, Z0
	ADDQ        $64, SRC
	ADDQ        $64, DST
	SUBQ        $16, N
	JMP         dot512_16

dot512_tail:
	TESTQ       N, N
	JZ          dot512_reduce
	TAILMASK(AX, K1)
	VMOVUPS.Z   (SRC), K1, Z4
	VMOVUPS.Z   (DST), K1, Z5
	VFMADD231PS Z5, Z4, Z1

dot512_reduce:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	HSUMZ(Z0, Y0, X0, Y1, X1)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotAVX2(x, y *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   x+0(FP), SRC
	MOVQ   y+8(FP), DST
	MOVQ   n+16(FP), N
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

dot2_32:
	CMPQ        N, $32
	JL          dot2_8
	VMOVUPS     (SRC), Y4
	VMOVUPS     32(SRC), Y5
	VMOVUPS     64(SRC), Y6
	VMOVUPS     96(SRC), Y7
	VFMADD231PS (DST), Y4, Y0
	VFMADD231PS 32(DST), Y5, Y1
	VFMADD231PS 64(DST), Y6, Y2
	VFMADD231PS 96(DST), Y7, Y3
	ADDQ        $128, SRC
	ADDQ        $128, DST
	SUBQ        $32, N
	JMP         dot2_32

dot2_8:
	CMPQ        N, $8
	JL          dot2_reduce
	VMOVUPS     (SRC), Y4
	VFMADD231PS (DST), Y4, Y0
	ADDQ        $32, SRC
	ADDQ        $32, DST
	SUBQ        $8, N
	JMP         dot2_8

dot2_reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUMY(Y0, X0, X1)

	// The scalar tail comes after the reduction: a VEX scalar op would
	// clear the upper lanes of a live ymm accumulator.
dot2_1:
	TESTQ       N, N
	JZ          dot2_done
	VMOVSS      (SRC), X4
	VFMADD231SS (DST), X4, X0
	ADDQ        $4, SRC
	ADDQ        $4, DST
	DECQ        N
	JMP         dot2_1

dot2_done:
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET
