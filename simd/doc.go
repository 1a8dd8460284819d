// Package simd holds omni's native kernels: int8 block-quantized and fp32
// GEMV/GEMM, the decoder's vector ops (RMSNorm, RoPE, SiLU·mul, softmax,
// attention over a KV cache), CPU feature dispatch and a worker pool.
//
// Every kernel family has a generic Go implementation (always compiled, the
// reference every other level is tested against), an AVX2 and an AVX-512
// VNNI implementation in Go assembly on amd64. The level is chosen once
// (Best, or OMNI_KERNELS through InitFromEnv); tests force one with Use.
//
// simd imports only golang.org/x/sys/cpu and github.com/klauspost/cpuid/v2.
package simd
